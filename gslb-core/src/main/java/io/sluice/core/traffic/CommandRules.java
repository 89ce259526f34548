package io.sluice.core.traffic;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.control.CommandRejectedException;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The rules of the operator commands' arguments, in one place: the admin API checks a request body
 * with them (answering 400 with the field) and the traffic controller checks every command with
 * them again, so the two can never disagree. Every rejection names the request field.
 */
public final class CommandRules {
  /** A drill moves at most this share of clients: drills are small by design. */
  public static final double MAX_DRILL_PERCENT = 50;

  /** The longest time box of a drill, in seconds. */
  public static final long MAX_DRILL_SECONDS = 86_400;

  /** The largest weight of a pool. */
  public static final int MAX_WEIGHT = 65_535;

  private CommandRules() {}

  /** The pool names of a service, for the checks below. */
  public static Set<String> pools(ServiceConfig cfg) {
    return PlanProjection.poolNames(cfg);
  }

  /** Immediate or ramped weights: at least one, each a pool of the service, 0..65535. */
  public static void weights(String service, Set<String> pools, Map<String, Integer> weights)
      throws CommandRejectedException {
    if (weights == null || weights.isEmpty()) {
      throw CommandRejectedException.invalid("weights", "at least one pool weight is required");
    }
    for (Map.Entry<String, Integer> e : weights.entrySet()) {
      String f = "weights." + e.getKey();
      if (!pools.contains(e.getKey())) {
        throw CommandRejectedException.invalid(
            f, "pool '" + e.getKey() + "' is not a pool of " + service + " (pools: " + pools + ")");
      }
      if (e.getValue() == null || e.getValue() < 0 || e.getValue() > MAX_WEIGHT) {
        throw CommandRejectedException.invalid(
            f, "must be 0.." + MAX_WEIGHT + ", was " + e.getValue());
      }
    }
  }

  /**
   * A planned move: {@code from} and {@code to} pools of the service, disjoint; {@code steps}
   * (empty: the configured ones) rising within 1..100 and ending at 100; {@code region} one of the
   * configured regions or null.
   */
  public static void move(
      String service,
      Set<String> pools,
      Set<String> regions,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String region)
      throws CommandRejectedException {
    pools("from", from, pools, service);
    pools("to", to, pools, service);
    for (int i = 0; i < to.size(); i++) {
      if (from.contains(to.get(i))) {
        throw CommandRejectedException.invalid(
            "to[" + i + "]", "pool '" + to.get(i) + "' is also in from");
      }
    }
    if (steps != null && !steps.isEmpty()) {
      steps(steps);
    }
    if (region != null && !regions.contains(region)) {
      throw CommandRejectedException.invalid(
          "region", "unknown region '" + region + "' (known: " + regions + ")");
    }
  }

  /**
   * A drill: {@code to} pools of the service leaving at least one outside, {@code percent} above 0
   * and at most {@value #MAX_DRILL_PERCENT}, {@code seconds} 1..{@value #MAX_DRILL_SECONDS}.
   */
  public static void drill(
      String service, Set<String> pools, List<String> to, Double percent, Long seconds)
      throws CommandRejectedException {
    pools("to", to, pools, service);
    if (percent == null || percent.isNaN() || percent <= 0 || percent > MAX_DRILL_PERCENT) {
      throw CommandRejectedException.invalid(
          "percent",
          "must be above 0 and at most "
              + (int) MAX_DRILL_PERCENT
              + " (drills are small), was "
              + percent);
    }
    if (seconds == null || seconds < 1 || seconds > MAX_DRILL_SECONDS) {
      throw CommandRejectedException.invalid(
          "seconds", "must be 1.." + MAX_DRILL_SECONDS + ", was " + seconds);
    }
    if (pools.stream().allMatch(to::contains)) {
      throw CommandRejectedException.invalid(
          "to", "a drill needs at least one pool of " + service + " left outside 'to'");
    }
  }

  /** Ramp steps: rising strictly within 1..100, the last one 100. */
  public static void steps(List<Integer> steps) throws CommandRejectedException {
    if (steps == null || steps.isEmpty()) {
      throw CommandRejectedException.invalid("steps", "at least one step is required");
    }
    int prev = 0;
    for (int i = 0; i < steps.size(); i++) {
      Integer s = steps.get(i);
      if (s == null || s <= prev || s > 100) {
        throw CommandRejectedException.invalid(
            "steps[" + i + "]", "steps must rise strictly within 1..100, was " + s);
      }
      prev = s;
    }
    if (prev != 100) {
      throw CommandRejectedException.invalid("steps", "the last step must be 100");
    }
  }

  private static void pools(String field, List<String> given, Set<String> known, String service)
      throws CommandRejectedException {
    if (given == null || given.isEmpty()) {
      throw CommandRejectedException.invalid(field, "at least one pool is required");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < given.size(); i++) {
      String p = given.get(i);
      if (p == null || !known.contains(p)) {
        throw CommandRejectedException.invalid(
            field + "[" + i + "]",
            "'" + p + "' is not a pool of " + service + " (pools: " + known + ")");
      }
      if (!seen.add(p)) {
        throw CommandRejectedException.invalid(
            field + "[" + i + "]", "pool '" + p + "' is listed twice");
      }
    }
  }
}
