package io.sluice.core.config;

import java.util.Locale;

/**
 * How the configuration, the API and the logs spell an enum constant: its name in lower case, words
 * joined by '-' ({@code AUTO_WITH_CONFIRM} is {@code auto-with-confirm}), as its
 * {@code @JsonProperty} names it.
 */
public final class Spellings {
  private Spellings() {}

  /** The spelling of {@code constant}. */
  public static String of(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
