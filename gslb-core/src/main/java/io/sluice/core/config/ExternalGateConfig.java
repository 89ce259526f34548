package io.sluice.core.config;

import java.net.URI;
import java.time.Duration;

/**
 * A gate on a metric read from a Prometheus-compatible HTTP API: {@code query} is sent to {@code
 * url}{@code /api/v1/query} and the first sample must be at most {@code max}.
 */
public record ExternalGateConfig(String url, String query, Double max, Duration timeout) {

  public ExternalGateConfig {
    timeout = timeout == null ? Duration.ofSeconds(2) : timeout;
  }

  void validate(String path, Problems p) {
    if (p.required(Problems.child(path, "url"), url)) {
      checkHttpUrl(Problems.child(path, "url"), url, p);
    }
    if (p.required(Problems.child(path, "query"), query) && query.isBlank()) {
      p.add(Problems.child(path, "query"), "must not be empty");
    }
    if (p.required(Problems.child(path, "max"), max) && max.isNaN()) {
      p.add(Problems.child(path, "max"), "must be a number");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      p.add(Problems.child(path, "timeout"), "must be above 0");
    }
  }

  /** Reports {@code url} at {@code field} unless it is an http:// or https:// URL. */
  static void checkHttpUrl(String field, String url, Problems p) {
    try {
      URI u = URI.create(url);
      if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) {
        p.add(field, "must be an http:// or https:// URL, was '" + url + "'");
      }
    } catch (IllegalArgumentException e) {
      p.add(field, "is not a URL: '" + url + "'");
    }
  }
}
