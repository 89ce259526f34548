package io.sluice.core.traffic;

import io.sluice.core.control.CommandRejectedException;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/** Validation shared by the operator commands; every rejection names the request field. */
final class CommandChecks {
  private CommandChecks() {}

  static void pools(String field, List<String> pools, Set<String> known, String service)
      throws CommandRejectedException {
    if (pools == null || pools.isEmpty()) {
      throw CommandRejectedException.invalid(field, "at least one pool is required");
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < pools.size(); i++) {
      String p = pools.get(i);
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

  static void steps(List<Integer> steps) throws CommandRejectedException {
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
}
