package io.sluice.admin.cli;

import java.time.Clock;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;

/**
 * Times as on-call reads them: relative ("3 min ago", "in 40 s") against an injectable clock, and
 * absolute in the clock's zone (the local one for a person at a terminal). {@code --json} output
 * never goes through here: it keeps the API's raw values.
 */
final class HumanTime {
  private final Clock clock;

  HumanTime(Clock clock) {
    this.clock = clock;
  }

  /** Now, in epoch milliseconds. */
  long now() {
    return clock.millis();
  }

  /** A length of time: "0 s", "40 s", "3 min", "2 min 5 s", "2 h 5 min", "3 d 4 h". */
  static String duration(long millis) {
    long s = Math.round(Math.abs(millis) / 1000.0);
    if (s < 60) {
      return s + " s";
    }
    if (s < 3600) {
      return s / 60 + " min" + (s % 60 == 0 ? "" : " " + s % 60 + " s");
    }
    if (s < 86400) {
      return s / 3600 + " h" + (s % 3600 / 60 == 0 ? "" : " " + s % 3600 / 60 + " min");
    }
    return s / 86400 + " d" + (s % 86400 / 3600 == 0 ? "" : " " + s % 86400 / 3600 + " h");
  }

  /** How long ago {@code epochMillis} was ("3 min ago"; "now" within half a second). */
  String ago(long epochMillis) {
    return relative(epochMillis);
  }

  /** {@code epochMillis} relative to now: "in 40 s", "3 min ago" or "now". */
  String relative(long epochMillis) {
    long d = epochMillis - now();
    if (Math.abs(d) < 500) {
      return "now";
    }
    return d > 0 ? "in " + duration(d) : duration(d) + " ago";
  }

  /**
   * {@code epochMillis} in the clock's zone: "14:03:12" on the same day as now, else "2026-11-29
   * 02:00:05".
   */
  String at(long epochMillis) {
    ZoneId zone = clock.getZone();
    LocalDateTime t = LocalDateTime.ofInstant(Instant.ofEpochMilli(epochMillis), zone);
    LocalDateTime today = LocalDateTime.ofInstant(clock.instant(), zone);
    StringBuilder sb = new StringBuilder(19);
    if (!t.toLocalDate().equals(today.toLocalDate())) {
      sb.append(t.getYear()).append('-');
      two(sb, t.getMonthValue()).append('-');
      two(sb, t.getDayOfMonth()).append(' ');
    }
    two(sb, t.getHour()).append(':');
    two(sb, t.getMinute()).append(':');
    return two(sb, t.getSecond()).toString();
  }

  /** Absolute and relative: "14:03:12 (3 min ago)", "14:10:00 (in 4 min)". */
  String when(long epochMillis) {
    return at(epochMillis) + " (" + relative(epochMillis) + ")";
  }

  private static StringBuilder two(StringBuilder sb, int v) {
    return sb.append(v < 10 ? "0" : "").append(v);
  }

  /**
   * The system clock in the local zone, the zone looked up only when an absolute time is printed:
   * finding it reads the JDK's time-zone rules, which a command that prints none need not pay for.
   */
  static final class LocalClock extends Clock {
    private volatile ZoneId zone;

    @Override
    public ZoneId getZone() {
      ZoneId z = zone;
      if (z == null) {
        z = ZoneId.systemDefault();
        zone = z;
      }
      return z;
    }

    @Override
    public Clock withZone(ZoneId z) {
      return Clock.system(z);
    }

    @Override
    public long millis() {
      return System.currentTimeMillis();
    }

    @Override
    public Instant instant() {
      return Instant.ofEpochMilli(millis());
    }
  }
}
