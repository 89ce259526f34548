package io.sluice.core.config;

import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * DNS over HTTPS (RFC 8484, {@code /dns-query}) and the HTTPDNS JSON API ({@code /resolve}) on
 * their own TLS listener, on when the section is written (unless {@code enabled: false}): the
 * addresses and port, the PEM certificate chain and PKCS#8 key (relative to the configuration file;
 * both left out, a self-signed certificate is generated into the state directory on first start),
 * whether HTTP/2 is offered besides HTTP/1.1, how long an idle connection is kept, the connection
 * caps (in all and per source) and the request deadline that keep slow clients from holding the
 * listener, and the HTTPDNS settings.
 */
public record HttpsConfig(
    Boolean enabled,
    List<String> listen,
    Integer port,
    String certFile,
    String keyFile,
    Boolean http2,
    Duration idleTimeout,
    Integer maxConnections,
    Integer maxConnectionsPerSource,
    Duration requestTimeout,
    HttpDnsConfig httpdns) {

  public HttpsConfig {
    // Writing the section turns it on; leaving it out (defaults()) keeps it off.
    enabled = enabled == null ? Boolean.TRUE : enabled;
    listen = listen == null ? List.of("127.0.0.1", "::1") : List.copyOf(listen);
    port = port == null ? 443 : port;
    http2 = http2 == null ? Boolean.TRUE : http2;
    idleTimeout = idleTimeout == null ? Duration.ofSeconds(30) : idleTimeout;
    maxConnections = maxConnections == null ? 1024 : maxConnections;
    // Left out, it never exceeds the total, so a configuration with a small total stays valid.
    maxConnectionsPerSource =
        maxConnectionsPerSource == null
            ? Math.max(1, Math.min(64, maxConnections))
            : maxConnectionsPerSource;
    requestTimeout = requestTimeout == null ? Duration.ofSeconds(10) : requestTimeout;
    httpdns = httpdns == null ? HttpDnsConfig.defaults() : httpdns;
  }

  /** No HTTPS listener (the default when {@code dns.https} is absent). */
  public static HttpsConfig defaults() {
    return new HttpsConfig(false, null, null, null, null, null, null, null, null, null, null);
  }

  /** Whether the certificate is generated (neither {@code certFile} nor {@code keyFile} set). */
  public boolean generatedCertificate() {
    return certFile == null && keyFile == null;
  }

  void validate(String path, Problems p) {
    Addresses.validateListen(path, listen, p);
    p.range(Problems.child(path, "port"), port, 0, 65535);
    if ((certFile == null) != (keyFile == null)) {
      p.add(
          Problems.child(path, certFile == null ? "certFile" : "keyFile"),
          "is required when "
              + (certFile == null ? "keyFile" : "certFile")
              + " is set (leave both out for a generated self-signed certificate)");
    }
    if (idleTimeout.compareTo(Duration.ofSeconds(1)) < 0
        || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
      p.add(Problems.child(path, "idleTimeout"), "must be at least 1s and at most 1h");
    }
    p.range(Problems.child(path, "maxConnections"), maxConnections, 1, 1_000_000);
    if (maxConnectionsPerSource < 1 || maxConnectionsPerSource > Math.max(1, maxConnections)) {
      p.add(
          Problems.child(path, "maxConnectionsPerSource"),
          "must be 1..maxConnections (" + maxConnections + "), was " + maxConnectionsPerSource);
    }
    if (requestTimeout.compareTo(Duration.ofSeconds(1)) < 0
        || requestTimeout.compareTo(Duration.ofMinutes(5)) > 0) {
      p.add(Problems.child(path, "requestTimeout"), "must be at least 1s and at most 5m");
    }
    httpdns.validate(Problems.child(path, "httpdns"), p);
  }

  /**
   * The HTTPDNS API ({@code GET /resolve}), on by default with the listener: the request rate each
   * client network may send (per {@code ipv4PrefixLength}/{@code ipv6PrefixLength} network of the
   * connection's address), and the tokens whose holders may ask on behalf of another address
   * ({@code ip=}), stored as SHA-256 hashes like the admin tokens.
   */
  public record HttpDnsConfig(
      Boolean enabled,
      Integer requestsPerSecond,
      Integer ipv4PrefixLength,
      Integer ipv6PrefixLength,
      List<TrustedToken> trustedTokens) {

    /** The highest rate a client network may be given (the rate limiter's bucket range). */
    static final int MAX_RATE = 10_000;

    public HttpDnsConfig {
      enabled = enabled == null ? Boolean.TRUE : enabled;
      requestsPerSecond = requestsPerSecond == null ? 20 : requestsPerSecond;
      ipv4PrefixLength = ipv4PrefixLength == null ? 32 : ipv4PrefixLength;
      ipv6PrefixLength = ipv6PrefixLength == null ? 64 : ipv6PrefixLength;
      trustedTokens = Lists.copy(trustedTokens);
    }

    public static HttpDnsConfig defaults() {
      return new HttpDnsConfig(null, null, null, null, null);
    }

    void validate(String path, Problems p) {
      p.range(Problems.child(path, "requestsPerSecond"), requestsPerSecond, 1, MAX_RATE);
      p.range(Problems.child(path, "ipv4PrefixLength"), ipv4PrefixLength, 8, 32);
      p.range(Problems.child(path, "ipv6PrefixLength"), ipv6PrefixLength, 16, 128);
      Set<String> names = new HashSet<>();
      for (int i = 0; i < trustedTokens.size(); i++) {
        String at = Problems.index(Problems.child(path, "trustedTokens"), i);
        TrustedToken t = trustedTokens.get(i);
        if (t == null) {
          p.add(at, "must be { name, sha256 }");
          continue;
        }
        if (p.required(Problems.child(at, "name"), t.name()) && !names.add(t.name())) {
          p.add(Problems.child(at, "name"), "'" + t.name() + "' is used by another token");
        }
        if (p.required(Problems.child(at, "sha256"), t.sha256())
            && !t.sha256().matches("[0-9a-f]{64}")) {
          p.add(Problems.child(at, "sha256"), "must be 64 hex digits (the token's SHA-256)");
        }
      }
    }
  }

  /** A token trusted to name the client of an HTTPDNS request; {@code sha256} is its hash. */
  public record TrustedToken(String name, String sha256) {
    public TrustedToken {
      sha256 = sha256 == null ? null : sha256.toLowerCase(Locale.ROOT);
    }
  }
}
