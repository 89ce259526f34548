package io.sluice.core.config;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One health check: {@code tcp} connect, or an {@code http}/{@code https} request with expected
 * status, body content and a latency bound. The target address defaults to the endpoint's.
 */
public record CheckConfig(
    String type,
    Integer port,
    String path,
    String method,
    String host,
    Map<String, String> headers,
    List<Integer> expectStatus,
    String expectBody,
    Duration interval,
    Duration timeout,
    Duration maxLatency) {

  public CheckConfig {
    type = type == null ? "http" : type.toLowerCase(Locale.ROOT);
    path = path == null ? "/" : path;
    method = method == null ? "GET" : method.toUpperCase(Locale.ROOT);
    headers = Lists.copyOrdered(headers);
    expectStatus = expectStatus == null ? List.of(200) : List.copyOf(expectStatus);
  }

  void validate(String path, Problems p) {
    if (!List.of("tcp", "http", "https").contains(type)) {
      p.add(Problems.child(path, "type"), "must be one of tcp, http, https; was '" + type + "'");
    }
    if (port != null) {
      p.range(Problems.child(path, "port"), port, 1, 65535);
    } else if ("tcp".equals(type)) {
      p.add(Problems.child(path, "port"), "is required for a tcp check");
    }
    if (interval != null && (interval.isNegative() || interval.isZero())) {
      p.add(Problems.child(path, "interval"), "must be positive");
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      p.add(Problems.child(path, "timeout"), "must be positive");
    }
  }
}
