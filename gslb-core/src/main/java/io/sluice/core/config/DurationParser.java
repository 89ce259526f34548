package io.sluice.core.config;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses durations as operators write them: {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}. */
public final class DurationParser {
  private static final Pattern FORM = Pattern.compile("(\\d+)(ms|s|m|h|d)");

  private DurationParser() {}

  /** The duration, or an exception whose message says what form is expected. */
  public static Duration parse(String text) {
    String t = text.trim();
    if (t.chars().allMatch(Character::isDigit) && !t.isEmpty()) {
      return Duration.ofSeconds(Long.parseLong(t));
    }
    Matcher m = FORM.matcher(t);
    if (!m.matches()) {
      throw new IllegalArgumentException(
          "must be a duration such as 500ms, 5s, 2m or 1h, was '" + text + "'");
    }
    long n = Long.parseLong(m.group(1));
    return switch (m.group(2)) {
      case "ms" -> Duration.ofMillis(n);
      case "s" -> Duration.ofSeconds(n);
      case "m" -> Duration.ofMinutes(n);
      case "h" -> Duration.ofHours(n);
      default -> Duration.ofDays(n);
    };
  }

  /** The shortest text that {@link #parse} reads back as {@code d}. */
  public static String format(Duration d) {
    long ms = d.toMillis();
    if (ms % 3_600_000 == 0 && ms != 0) {
      return ms / 3_600_000 + "h";
    }
    if (ms % 60_000 == 0 && ms != 0) {
      return ms / 60_000 + "m";
    }
    if (ms % 1000 == 0) {
      return ms / 1000 + "s";
    }
    return ms + "ms";
  }
}
