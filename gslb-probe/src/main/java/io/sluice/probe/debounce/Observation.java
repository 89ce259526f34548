package io.sluice.probe.debounce;

import java.util.LinkedHashMap;
import java.util.Map;

/** One check result kept as evidence for audit events and status. */
public record Observation(
    String vantage, String check, boolean ok, double rttMillis, String error, long atMillis) {

  /** The evidence as a plain map for audit details. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("vantage", vantage);
    m.put("check", check);
    m.put("ok", ok);
    m.put("rttMillis", Double.isNaN(rttMillis) ? null : Math.round(rttMillis * 10) / 10.0);
    if (error != null) {
      m.put("error", error);
    }
    m.put("atMillis", atMillis);
    return m;
  }
}
