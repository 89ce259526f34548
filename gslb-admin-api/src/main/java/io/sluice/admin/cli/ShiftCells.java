package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The short cells {@code status} and {@code watch} show for a service's ramp, drill and pending
 * confirmation, with times relative to now: {@code failover-3 → us-east-1 25 % step 1/3, next in 40
 * s}.
 */
final class ShiftCells {
  private ShiftCells() {}

  private static boolean absent(JsonNode n) {
    return n == null || n.isMissingNode() || n.isNull() || n.isEmpty();
  }

  /**
   * A ramp: its kind and number, where traffic goes, its share there now, the step, and what comes
   * next ("next in 40 s", "next step due", "completes in 40 s", "waiting for confirm", "PAUSED by a
   * gate"); "-" when none.
   */
  static String ramp(JsonNode r, HumanTime time) {
    if (absent(r)) {
      return "-";
    }
    String id = r.path("id").asText("");
    String kind = r.path("kind").asText("ramp");
    String label = id.startsWith("ramp-") ? kind + "-" + id.substring("ramp-".length()) : id;
    StringBuilder sb = new StringBuilder(label);
    String targets = StatusCommand.text(r.path("targets"));
    if (!targets.isEmpty()) {
      sb.append(" → ").append(targets);
    }
    if (r.hasNonNull("region")) {
      sb.append(" (").append(r.path("region").asText()).append(" clients)");
    }
    int step = r.path("step").asInt(-1);
    int steps = r.path("steps").size();
    if (step < 0) {
      return sb.append(" starting").toString();
    }
    sb.append(' ')
        .append(percent(r.path("targetPercent").asDouble(r.path("percent").asDouble())))
        .append(" step ")
        .append(step + 1)
        .append('/')
        .append(steps);
    String state = r.path("state").asText("running");
    switch (state) {
      case "paused" -> sb.append(", PAUSED by a gate");
      case "awaiting-confirm" -> sb.append(", waiting for confirm");
      default -> {
        long ends =
            r.path("windowEndsMillis")
                .asLong(r.path("stepSinceMillis").asLong() + r.path("windowMillis").asLong());
        boolean last = step == steps - 1;
        if (ends - time.now() >= 500) {
          sb.append(last ? ", completes " : ", next ").append(time.relative(ends));
        } else {
          sb.append(last ? ", completing" : ", next step due");
        }
      }
    }
    return sb.toString();
  }

  /** A drill: where to, how much, and when it ends ("→ us-east-1 10 %, ends in 4 min"). */
  static String drill(JsonNode d, HumanTime time) {
    if (absent(d)) {
      return "-";
    }
    return "→ "
        + StatusCommand.text(d.path("to"))
        + " "
        + percent(d.path("percent").asDouble())
        + (d.hasNonNull("endsMillis")
            ? ", ends " + time.relative(d.path("endsMillis").asLong())
            : "");
  }

  /**
   * What waits for a person, as on-call reads it: the kind and its summary, for how long it has
   * waited and when it expires ("start: fail over … (waiting 3 min, expires in 7 min)").
   */
  static String pending(JsonNode p, HumanTime time) {
    if (absent(p)) {
      return "-";
    }
    StringBuilder sb =
        new StringBuilder(p.path("kind").asText("?"))
            .append(": ")
            .append(p.path("summary").asText(""));
    if (p.hasNonNull("sinceMillis")) {
      sb.append(" (waiting ")
          .append(HumanTime.duration(time.now() - p.path("sinceMillis").asLong()));
      if (p.hasNonNull("expiresMillis")) {
        sb.append(", expires ").append(time.relative(p.path("expiresMillis").asLong()));
      }
      sb.append(')');
    }
    return sb.toString();
  }

  /** "25 %", "12.5 %". */
  static String percent(double p) {
    double r = Math.round(p * 10) / 10.0;
    return (r == Math.rint(r) ? String.valueOf((long) r) : String.valueOf(r)) + " %";
  }
}
