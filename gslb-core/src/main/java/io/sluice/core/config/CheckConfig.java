package io.sluice.core.config;

import static com.fasterxml.jackson.annotation.JsonFormat.Feature.ACCEPT_CASE_INSENSITIVE_PROPERTIES;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * One health check: {@code tcp} connect, or an {@code http}/{@code https} request with expected
 * status, body content and a latency bound. The target address defaults to the endpoint's; {@code
 * address} overrides it (and is required for CNAME endpoints). Interval and timeout default per
 * layer: 5 s / 2 s for a heartbeat, 30 s / 5 s for a full-link check.
 */
public record CheckConfig(
    // Read in any case, as the first release read it.
    @JsonFormat(with = ACCEPT_CASE_INSENSITIVE_PROPERTIES) CheckType type,
    String address,
    Integer port,
    String path,
    String method,
    String host,
    Map<String, String> headers,
    List<Integer> expectStatus,
    String expectBody,
    String expectBodyRegex,
    String expectJsonPointer,
    String expectJsonValue,
    Boolean tlsInsecure,
    Duration interval,
    Duration timeout,
    Duration maxLatency) {

  public CheckConfig {
    type = type == null ? CheckType.HTTP : type;
    path = path == null ? "/" : path;
    method = method == null ? "GET" : method.toUpperCase(Locale.ROOT);
    headers = Lists.copyOrdered(headers);
    expectStatus = expectStatus == null ? List.of(200) : List.copyOf(expectStatus);
    tlsInsecure = tlsInsecure != null && tlsInsecure;
  }

  /** A TCP connect check of {@code port}, with layer defaults for interval and timeout. */
  public static CheckConfig tcp(int port) {
    return request(CheckType.TCP, null, port, null, null, null, null);
  }

  /** An HTTP GET of {@code path} on {@code port} expecting 200, with layer defaults. */
  public static CheckConfig http(int port, String path) {
    return request(CheckType.HTTP, null, port, path, null, null, null);
  }

  /**
   * A check of {@code type} on {@code port} of {@code address} (null: the endpoint's); for http and
   * https a GET of {@code path} with the Host {@code host} (null: the address) expecting {@code
   * expectStatus} (null: 200). The layer's timeout unless {@code timeout} is set; nothing else set.
   */
  public static CheckConfig request(
      CheckType type,
      String address,
      int port,
      String path,
      String host,
      List<Integer> expectStatus,
      Duration timeout) {
    return new CheckConfig(
        type,
        address,
        port,
        path,
        null,
        host,
        null,
        expectStatus,
        null,
        null,
        null,
        null,
        null,
        null,
        timeout,
        null);
  }

  /** True for {@code http} and {@code https} checks. */
  public boolean isHttp() {
    return type != CheckType.TCP;
  }

  /** The port to connect to: explicit, else 80 for http and 443 for https. */
  public int effectivePort() {
    if (port != null) {
      return port;
    }
    return type.defaultPort();
  }

  /** The interval, or {@code layerDefault} when not set. */
  public Duration intervalOr(Duration layerDefault) {
    return interval == null ? layerDefault : interval;
  }

  /** The timeout, or {@code layerDefault} when not set. */
  public Duration timeoutOr(Duration layerDefault) {
    return timeout == null ? layerDefault : timeout;
  }

  void validate(String path, Problems p) {
    if (port != null) {
      p.range(Problems.child(path, "port"), port, 1, 65535);
    } else if (type == CheckType.TCP) {
      p.add(Problems.child(path, "port"), "is required for a tcp check");
    }
    if (address != null && address.isBlank()) {
      p.add(Problems.child(path, "address"), "must not be empty");
    }
    if (address != null && !Addresses.isLiteral(address) && DomainNames.problem(address) != null) {
      p.add(
          Problems.child(path, "address"),
          "must be an IP address or a host name, was '" + address + "'");
    }
    if (!this.path.startsWith("/")) {
      p.add(Problems.child(path, "path"), "must start with '/', was '" + this.path + "'");
    }
    if (!method.matches("[A-Z]{1,16}")) {
      p.add(Problems.child(path, "method"), "must be an HTTP method name, was '" + method + "'");
    }
    for (int i = 0; i < expectStatus.size(); i++) {
      Integer s = expectStatus.get(i);
      if (s == null) {
        p.add(Problems.index(Problems.child(path, "expectStatus"), i), "must not be empty");
      } else {
        p.range(Problems.index(Problems.child(path, "expectStatus"), i), s, 100, 599);
      }
    }
    if (expectStatus.isEmpty()) {
      p.add(Problems.child(path, "expectStatus"), "at least one status is required");
    }
    if (expectBodyRegex != null) {
      try {
        Pattern.compile(expectBodyRegex);
      } catch (PatternSyntaxException e) {
        p.add(
            Problems.child(path, "expectBodyRegex"),
            "is not a valid regular expression: " + e.getDescription());
      }
    }
    if (expectJsonPointer != null && !expectJsonPointer.startsWith("/")) {
      p.add(
          Problems.child(path, "expectJsonPointer"),
          "must be a JSON pointer starting with '/', was '" + expectJsonPointer + "'");
    }
    if ((expectJsonPointer == null) != (expectJsonValue == null)) {
      p.add(
          Problems.child(path, expectJsonPointer == null ? "expectJsonPointer" : "expectJsonValue"),
          "is required when "
              + (expectJsonPointer == null ? "expectJsonValue" : "expectJsonPointer")
              + " is set");
    }
    if (!isHttp()) {
      for (String key :
          List.of("expectBody", "expectBodyRegex", "expectJsonPointer", "host", "maxLatency")) {
        Object v =
            switch (key) {
              case "expectBody" -> expectBody;
              case "expectBodyRegex" -> expectBodyRegex;
              case "expectJsonPointer" -> expectJsonPointer;
              case "host" -> host;
              default -> maxLatency;
            };
        if (v != null) {
          p.add(Problems.child(path, key), "applies to http and https checks only");
        }
      }
    }
    if (interval != null && (interval.isNegative() || interval.isZero())) {
      p.add(Problems.child(path, "interval"), "must be positive");
    }
    if (timeout != null && (timeout.isNegative() || timeout.isZero())) {
      p.add(Problems.child(path, "timeout"), "must be positive");
    }
    if (maxLatency != null && (maxLatency.isNegative() || maxLatency.isZero())) {
      p.add(Problems.child(path, "maxLatency"), "must be positive");
    }
  }
}
