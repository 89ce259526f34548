package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/** The HMAC algorithms a TSIG key may use (RFC 8945 §6), by their configuration spelling. */
public enum TsigAlgorithm {
  HMAC_SHA256("hmac-sha256", 32),
  HMAC_SHA384("hmac-sha384", 48),
  HMAC_SHA512("hmac-sha512", 64);

  private final String text;
  private final int secretBytes;

  TsigAlgorithm(String text, int secretBytes) {
    this.text = text;
    this.secretBytes = secretBytes;
  }

  /** The name as written in the configuration and in {@code dig -y}. */
  @JsonValue
  public String text() {
    return text;
  }

  /** The length of a generated secret: the hash's output size (RFC 2104 §3). */
  public int secretBytes() {
    return secretBytes;
  }

  @Override
  public String toString() {
    return text;
  }

  /** Reads the configuration spelling; unknown names fail naming the accepted ones. */
  @JsonCreator
  public static TsigAlgorithm of(String text) {
    String t = text.toLowerCase(Locale.ROOT);
    for (TsigAlgorithm a : values()) {
      if (a.text.equals(t)) {
        return a;
      }
    }
    throw new IllegalArgumentException(
        "must be one of hmac-sha256, hmac-sha384, hmac-sha512; was '" + text + "'");
  }
}
