package io.sluice.core.config;

import static com.fasterxml.jackson.annotation.JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.time.Duration;
import java.util.List;

/**
 * How traffic shifts for one service: mode, ramp steps and observation window, cooldown, the TTL
 * served while shifting, whether failback is automatic, the gates of every step, how long a
 * proposed step waits for confirmation and what happens then, the margin before the long TTL
 * returns, whether auto-with-confirm asks for each step or once for the whole move, and below which
 * share of usable endpoints a degraded pool is failed over.
 */
public record TrafficConfig(
    // The three spellings are read in any case, as the first release read them.
    @JsonFormat(with = ACCEPT_CASE_INSENSITIVE_PROPERTIES) ShiftMode mode,
    List<Integer> steps,
    Duration window,
    Duration cooldown,
    Long shiftTtl,
    Boolean autoFailback,
    GateConfig gates,
    Duration confirmTimeout,
    @JsonFormat(with = ACCEPT_CASE_INSENSITIVE_PROPERTIES) ConfirmTimeout onConfirmTimeout,
    Duration ttlMargin,
    @JsonFormat(with = ACCEPT_CASE_INSENSITIVE_PROPERTIES) ConfirmScope confirm,
    Integer failoverBelow) {

  public TrafficConfig {
    mode = mode == null ? ShiftMode.AUTO : mode;
    steps = steps == null ? List.of(1, 5, 20, 50, 100) : List.copyOf(steps);
    window = window == null ? Duration.ofMinutes(5) : window;
    cooldown = cooldown == null ? Duration.ofSeconds(60) : cooldown;
    shiftTtl = shiftTtl == null ? 10L : shiftTtl;
    autoFailback = autoFailback == null ? Boolean.FALSE : autoFailback;
    gates = gates == null ? GateConfig.defaults() : gates;
    confirmTimeout = confirmTimeout == null ? Duration.ofMinutes(10) : confirmTimeout;
    onConfirmTimeout = onConfirmTimeout == null ? ConfirmTimeout.REJECT : onConfirmTimeout;
    ttlMargin = ttlMargin == null ? Duration.ofSeconds(5) : ttlMargin;
    confirm = confirm == null ? ConfirmScope.STEP : confirm;
    failoverBelow = failoverBelow == null ? 0 : failoverBelow;
  }

  /** Every setting but {@code failoverBelow}, which takes its default. */
  public TrafficConfig(
      ShiftMode mode,
      List<Integer> steps,
      Duration window,
      Duration cooldown,
      Long shiftTtl,
      Boolean autoFailback,
      GateConfig gates,
      Duration confirmTimeout,
      ConfirmTimeout onConfirmTimeout,
      Duration ttlMargin,
      ConfirmScope confirm) {
    this(
        mode,
        steps,
        window,
        cooldown,
        shiftTtl,
        autoFailback,
        gates,
        confirmTimeout,
        onConfirmTimeout,
        ttlMargin,
        confirm,
        null);
  }

  /**
   * True when a pool with {@code usable} of {@code total} endpoints not down counts as failed: none
   * usable, or fewer than {@code failoverBelow} percent.
   */
  public boolean poolFailed(int usable, int total) {
    return total > 0 && (usable == 0 || usable * 100L < (long) failoverBelow * total);
  }

  /** The settings of the first release, with defaults for everything added since. */
  public TrafficConfig(
      ShiftMode mode,
      List<Integer> steps,
      Duration window,
      Duration cooldown,
      Long shiftTtl,
      Boolean autoFailback) {
    this(mode, steps, window, cooldown, shiftTtl, autoFailback, null, null, null, null, null, null);
  }

  public static TrafficConfig defaults() {
    return new TrafficConfig(null, null, null, null, null, null);
  }

  void validate(String path, Problems p) {
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
    gates.validate(Problems.child(path, "gates"), p);
    if (confirmTimeout.isNegative() || confirmTimeout.isZero()) {
      p.add(Problems.child(path, "confirmTimeout"), "must be above 0");
    }
    if (ttlMargin.isNegative()) {
      p.add(Problems.child(path, "ttlMargin"), "must not be negative");
    }
    p.range(Problems.child(path, "failoverBelow"), failoverBelow, 0, 100);
  }
}
