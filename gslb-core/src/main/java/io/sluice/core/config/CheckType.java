package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;

/** What a health check does ({@code check.type}): connect, or make an HTTP(S) request. */
public enum CheckType {
  /** A TCP connect to the target's port. */
  @JsonProperty("tcp")
  TCP("tcp", 0),
  /** An HTTP request, port 80 unless set. */
  @JsonProperty("http")
  HTTP("http", 80),
  /** An HTTP request over TLS, port 443 unless set. */
  @JsonProperty("https")
  HTTPS("https", 443);

  private final String text;
  private final int defaultPort;

  CheckType(String text, int defaultPort) {
    this.text = text;
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
