package io.sluice.core.traffic;

import java.util.LinkedHashMap;
import java.util.Map;

/** The JSON-friendly status maps of a ramp, a drill and a pending confirmation. */
final class StatusMaps {
  private StatusMaps() {}

  static Map<String, Object> ramp(Ramp r) {
    if (r == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("kind", r.kind().wire());
    m.put("trigger", r.trigger());
    m.put("state", r.state().wire());
    if (r.shift() != null) {
      m.put("from", r.shift().from());
      m.put("to", r.shift().to());
      if (r.shift().region() != null) {
        m.put("region", r.shift().region());
      }
    } else {
      m.put("fromWeights", r.fromWeights());
      m.put("toWeights", r.toWeights());
    }
    m.put("steps", r.steps());
    m.put("step", r.index());
    m.put("percent", r.percent(r.index()));
    m.put("lastGoodPercent", r.percent(r.lastGood()));
    m.put("stepSinceMillis", r.stepSinceMillis());
    m.put("windowMillis", r.windowMillis());
    // What the CLI's RAMP cell shows without knowing how each kind counts: where traffic goes,
    // its share there now, and when the window of the current step ends.
    m.put("targets", r.targets());
    m.put("targetPercent", r.targetPercent(r.index()));
    m.put("summary", r.describe());
    m.put("windowEndsMillis", r.stepSinceMillis() + r.windowMillis());
    m.put("switchId", r.record().id());
    return m;
  }

  static Map<String, Object> drill(Drill d) {
    if (d == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", d.id());
    m.put("to", d.shift().to());
    m.put("percent", d.shift().percent());
    m.put("startedMillis", d.startedMillis());
    m.put("endsMillis", d.endsMillis());
    return m;
  }

  static Map<String, Object> pending(Pending p) {
    if (p == null) {
      return null;
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("kind", p.kind().wire());
    m.put("summary", p.summary());
    m.put("sinceMillis", p.sinceMillis());
    if (p.expiresMillis() != Long.MAX_VALUE) {
      m.put("expiresMillis", p.expiresMillis());
    }
    if (p.heldByFreeze()) {
      m.put("heldByFreeze", true);
    }
    return m;
  }
}
