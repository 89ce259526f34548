package io.sluice.core.traffic;

import io.sluice.core.control.SwitchRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Builds switch records step by step; records are immutable, so each change returns a copy. */
final class Switches {
  private Switches() {}

  static SwitchRecord start(
      String id,
      String service,
      String trigger,
      List<String> from,
      List<String> to,
      long now,
      Map<String, Object> details) {
    return new SwitchRecord(
        id, service, trigger, from, to, now, null, "running", List.of(), details);
  }

  static SwitchRecord step(
      SwitchRecord r, String event, double percent, long now, Map<String, Object> gates) {
    Map<String, Object> s = new LinkedHashMap<>();
    s.put("event", event);
    s.put("percent", percent);
    s.put("atMillis", now);
    if (gates != null) {
      s.put("gates", gates);
    }
    List<Map<String, Object>> steps = new ArrayList<>(r.steps());
    steps.add(s);
    return new SwitchRecord(
        r.id(),
        r.service(),
        r.trigger(),
        r.from(),
        r.to(),
        r.startedMillis(),
        r.endedMillis(),
        r.outcome(),
        steps,
        r.details());
  }

  static SwitchRecord finish(
      SwitchRecord r, String outcome, long now, Map<String, Object> extraDetails) {
    Map<String, Object> d = new HashMap<>(r.details());
    d.putAll(extraDetails);
    return new SwitchRecord(
        r.id(),
        r.service(),
        r.trigger(),
        r.from(),
        r.to(),
        r.startedMillis(),
        now,
        outcome,
        r.steps(),
        d);
  }

  /**
   * The switch records an event of {@code service} concerns in {@code state}: those it finished,
   * then the record of the ramp or drill still running (a global event concerns none running).
   */
  static List<SwitchRecord> concerning(
      ControlState state, String service, List<SwitchRecord> finished) {
    List<SwitchRecord> out = new ArrayList<>(finished);
    if (service != null) {
      ServiceControl sc = state.service(service);
      if (sc.ramp() != null && sc.ramp().record() != null) {
        out.add(sc.ramp().record());
      }
      if (sc.drill() != null && sc.drill().record() != null) {
        out.add(sc.drill().record());
      }
    }
    return out;
  }
}
