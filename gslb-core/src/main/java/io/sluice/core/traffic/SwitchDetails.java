package io.sluice.core.traffic;

import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TrafficConfig;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The conditions a switch record keeps: mode, steps, window, gates and the regions touched. */
final class SwitchDetails {
  private SwitchDetails() {}

  /** Both lists, in order. */
  static List<String> concat(List<String> a, List<String> b) {
    List<String> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  }

  /**
   * What a switch record keeps of its conditions: mode, the steps the ramp really takes (an
   * operator's own steps, else the configured ones; null for a drill, which has none), window,
   * gates, regions touched.
   */
  static Map<String, Object> conditions(
      SluiceConfig config,
      TrafficConfig tc,
      List<Integer> steps,
      java.util.Collection<String> pools,
      Map<String, Object> extra) {
    Map<String, Object> d = new LinkedHashMap<>(extra);
    java.util.TreeSet<String> regions = new java.util.TreeSet<>();
    for (String p : pools) {
      PoolConfig pc = config.pools().get(p);
      if (pc != null && pc.region() != null) {
        regions.add(pc.region());
      }
    }
    d.put("affectedRegions", List.copyOf(regions));
    d.put("mode", tc.mode().toString());
    if (steps != null) {
      d.put("steps", List.copyOf(steps));
    }
    d.put("windowMillis", tc.window().toMillis());
    Map<String, Object> g = new LinkedHashMap<>();
    g.put("requireUp", tc.gates().requireUp());
    g.put("maxErrorRate", tc.gates().maxErrorRate());
    g.put("minResults", tc.gates().minResults());
    if (tc.gates().maxP99Millis() != null) {
      g.put("maxP99Millis", tc.gates().maxP99Millis());
    }
    if (tc.gates().external() != null) {
      g.put("externalQuery", tc.gates().external().query());
      g.put("externalMax", tc.gates().external().max());
    }
    d.put("gates", g);
    return d;
  }
}
