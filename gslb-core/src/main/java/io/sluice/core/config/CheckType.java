package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a health check does ({@code check.type}): connect, or make an HTTP(S) request. */
public enum CheckType {
  /** A TCP connect to the target's port. */
  @JsonProperty("tcp")
  TCP(0),
  /** An HTTP request, port 80 unless set. */
  @JsonProperty("http")
  HTTP(80),
  /** An HTTP request over TLS, port 443 unless set. */
  @JsonProperty("https")
  HTTPS(443);

  private final String text = Spellings.of(this);
  private final int defaultPort;

  CheckType(int defaultPort) {
    this.defaultPort = defaultPort;
  }

  /** The port checked when the check sets none; 0 where one is required (tcp). */
  public int defaultPort() {
    return defaultPort;
  }

  /** The spelling in the configuration, in check descriptions and in logs. */
  @Override
  public String toString() {
    return text;
  }
}
