package io.sluice.core.config;

import java.time.Duration;

/**
 * Health checking of a pool's (or one endpoint's) endpoints: a fast heartbeat and a slow full-link
 * check, with debounce thresholds, tries per check run, fast confirmation, the cooldown between
 * verdict changes and flap damping. An endpoint's section replaces its pool's section as a whole.
 */
public record HealthConfig(
    CheckConfig heartbeat,
    CheckConfig fullLink,
    Integer downAfter,
    Integer upAfter,
    Integer attempts,
    Duration fastRecheck,
    Duration cooldown,
    Integer cooldownBreak,
    Integer flapLimit,
    Duration flapWindow,
    Duration flapHoldDown,
    Duration flapHoldDownMax) {

  /** Default heartbeat interval. */
  public static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(5);

  /** Default heartbeat timeout. */
  public static final Duration HEARTBEAT_TIMEOUT = Duration.ofSeconds(2);

  /** Default full-link interval. */
  public static final Duration FULL_LINK_INTERVAL = Duration.ofSeconds(30);

  /** Default full-link timeout. */
  public static final Duration FULL_LINK_TIMEOUT = Duration.ofSeconds(5);

  public HealthConfig {
    downAfter = downAfter == null ? 3 : downAfter;
    upAfter = upAfter == null ? 2 : upAfter;
    attempts = attempts == null ? 3 : attempts;
    fastRecheck = fastRecheck == null ? Duration.ofSeconds(1) : fastRecheck;
    cooldown = cooldown == null ? Duration.ofSeconds(60) : cooldown;
    cooldownBreak = cooldownBreak == null ? 6 : cooldownBreak;
    flapLimit = flapLimit == null ? 4 : flapLimit;
    flapWindow = flapWindow == null ? Duration.ofMinutes(10) : flapWindow;
    flapHoldDown = flapHoldDown == null ? Duration.ofMinutes(2) : flapHoldDown;
    flapHoldDownMax = flapHoldDownMax == null ? Duration.ofMinutes(30) : flapHoldDownMax;
  }

  /** Thresholds and timings with the given checks. */
  public HealthConfig(CheckConfig heartbeat, CheckConfig fullLink) {
    this(heartbeat, fullLink, null, null, null, null, null, null, null, null, null, null);
  }

  public static HealthConfig defaults() {
    return new HealthConfig(null, null);
  }

  /** True when no check at all is configured: endpoints are then taken as up. */
  public boolean unchecked() {
    return heartbeat == null && fullLink == null;
  }

  /** The check whose failures can make an endpoint down: full-link, else a lone heartbeat. */
  public CheckConfig decidingCheck() {
    return fullLink != null ? fullLink : heartbeat;
  }

  void validate(String path, Problems p) {
    if (heartbeat != null) {
      heartbeat.validate(Problems.child(path, "heartbeat"), p);
    }
    if (fullLink != null) {
      fullLink.validate(Problems.child(path, "fullLink"), p);
    }
    p.range(Problems.child(path, "downAfter"), downAfter, 1, 100);
    p.range(Problems.child(path, "upAfter"), upAfter, 1, 100);
    p.range(Problems.child(path, "attempts"), attempts, 1, 10);
    positive(Problems.child(path, "fastRecheck"), fastRecheck, p);
    if (cooldown.isNegative()) {
      p.add(Problems.child(path, "cooldown"), "must not be negative");
    }
    p.range(Problems.child(path, "cooldownBreak"), cooldownBreak, 0, 1000);
    p.range(Problems.child(path, "flapLimit"), flapLimit, 1, 1000);
    positive(Problems.child(path, "flapWindow"), flapWindow, p);
    positive(Problems.child(path, "flapHoldDown"), flapHoldDown, p);
    if (flapHoldDownMax.compareTo(flapHoldDown) < 0) {
      p.add(
          Problems.child(path, "flapHoldDownMax"),
          "must not be shorter than flapHoldDown ("
              + DurationParser.format(flapHoldDown)
              + "), was "
              + DurationParser.format(flapHoldDownMax));
    }
  }

  /** Checks that an endpoint known only by a CNAME has an explicit address on every check. */
  void validateForCname(String path, Problems p) {
    if (heartbeat != null && heartbeat.address() == null) {
      p.add(
          Problems.child(Problems.child(path, "heartbeat"), "address"),
          "is required for a CNAME endpoint (the check needs an explicit target)");
    }
    if (fullLink != null && fullLink.address() == null) {
      p.add(
          Problems.child(Problems.child(path, "fullLink"), "address"),
          "is required for a CNAME endpoint (the check needs an explicit target)");
    }
  }

  private static void positive(String path, Duration d, Problems p) {
    if (d.isNegative() || d.isZero()) {
      p.add(path, "must be positive");
    }
  }
}
