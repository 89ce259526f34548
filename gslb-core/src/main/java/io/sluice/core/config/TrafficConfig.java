package io.sluice.core.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * How traffic shifts for one service: mode, ramp steps and observation window, cooldown, the TTL
 * served while shifting, and whether failback is automatic.
 */
public record TrafficConfig(
    String mode,
    List<Integer> steps,
    Duration window,
    Duration cooldown,
    Long shiftTtl,
    Boolean autoFailback) {

  public TrafficConfig {
    mode = mode == null ? "auto" : mode.toLowerCase(Locale.ROOT);
    steps = steps == null ? List.of(1, 5, 20, 50, 100) : List.copyOf(steps);
    window = window == null ? Duration.ofMinutes(5) : window;
    cooldown = cooldown == null ? Duration.ofSeconds(60) : cooldown;
    shiftTtl = shiftTtl == null ? 10L : shiftTtl;
    autoFailback = autoFailback == null ? Boolean.FALSE : autoFailback;
  }

  public static TrafficConfig defaults() {
    return new TrafficConfig(null, null, null, null, null, null);
  }

  void validate(String path, Problems p) {
    if (!List.of("auto", "auto-with-confirm", "manual").contains(mode)) {
      p.add(
          Problems.child(path, "mode"),
          "must be one of auto, auto-with-confirm, manual; was '" + mode + "'");
    }
    if (steps.isEmpty()) {
      p.add(Problems.child(path, "steps"), "at least one step is required");
    }
    int previous = 0;
    for (int i = 0; i < steps.size(); i++) {
      int s = steps.get(i);
      if (s <= previous || s > 100) {
        p.add(
            Problems.index(Problems.child(path, "steps"), i),
            "steps must rise strictly within 1..100, was " + s);
      }
      previous = s;
    }
    if (!steps.isEmpty() && steps.get(steps.size() - 1) != 100) {
      p.add(Problems.child(path, "steps"), "the last step must be 100");
    }
    if (window.isNegative()) {
      p.add(Problems.child(path, "window"), "must not be negative");
    }
    if (cooldown.isNegative()) {
      p.add(Problems.child(path, "cooldown"), "must not be negative");
    }
    p.range(Problems.child(path, "shiftTtl"), shiftTtl, 0, Integer.MAX_VALUE);
  }
}
