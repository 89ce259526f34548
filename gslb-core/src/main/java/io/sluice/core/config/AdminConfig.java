package io.sluice.core.config;

import io.sluice.core.control.TokenScope;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin REST API listener: address, bearer tokens (stored as SHA-256 hashes only), optional
 * TLS, the request body limit, the failed-authentication rate limit, whether {@code /metrics} needs
 * a token, the connection limits, and whether a non-loopback listener may run without TLS.
 */
public record AdminConfig(
    Boolean enabled,
    String listen,
    Integer port,
    List<TokenConfig> tokens,
    TlsConfig tls,
    Integer maxBodyBytes,
    Integer authFailuresPerMinute,
    Boolean metricsPublic,
    ConnectionLimits connections,
    Boolean allowInsecureListen) {

  /** The roles a token may have. */
  public static final List<String> ROLES = List.of("viewer", "operator", "admin", "probe");

  public AdminConfig {
    enabled = enabled == null ? Boolean.TRUE : enabled;
    listen = listen == null ? "127.0.0.1" : listen;
    port = port == null ? 8053 : port;
    tokens = Lists.copy(tokens);
    maxBodyBytes = maxBodyBytes == null ? 65_536 : maxBodyBytes;
    authFailuresPerMinute = authFailuresPerMinute == null ? 10 : authFailuresPerMinute;
    metricsPublic = metricsPublic == null ? Boolean.FALSE : metricsPublic;
    connections = connections == null ? ConnectionLimits.defaults() : connections;
    allowInsecureListen = allowInsecureListen == null ? Boolean.FALSE : allowInsecureListen;
  }

  /** The listener without TLS and with default limits. */
  public AdminConfig(Boolean enabled, String listen, Integer port, List<TokenConfig> tokens) {
    this(enabled, listen, port, tokens, null, null, null, null, null, null);
  }

  public static AdminConfig defaults() {
    return new AdminConfig(null, null, null, null);
  }

  /** The same settings on another port (a command-line override). */
  public AdminConfig withPort(int newPort) {
    return copy(newPort, tokens);
  }

  /** The same settings with other tokens. */
  public AdminConfig withTokens(List<TokenConfig> newTokens) {
    return copy(port, newTokens);
  }

  private AdminConfig copy(int newPort, List<TokenConfig> newTokens) {
    return new AdminConfig(
        enabled,
        listen,
        newPort,
        newTokens,
        tls,
        maxBodyBytes,
        authFailuresPerMinute,
        metricsPublic,
        connections,
        allowInsecureListen);
  }

  void validate(String path, Problems p) {
    if (!Addresses.isLiteral(listen)) {
      p.add(Problems.child(path, "listen"), "must be an IP address, was '" + listen + "'");
    } else if (tls == null && !allowInsecureListen && !isLoopback(listen)) {
      p.add(
          Problems.child(path, "listen"),
          "'"
              + listen
              + "' is not a loopback address and admin.tls is not set: bearer tokens would"
              + " cross the network in clear text; configure admin.tls, listen on 127.0.0.1,"
              + " or set admin.allowInsecureListen: true");
    }
    connections.validate(Problems.child(path, "connections"), p);
    p.range(Problems.child(path, "port"), port, 0, 65535);
    p.range(Problems.child(path, "maxBodyBytes"), maxBodyBytes, 1024, 16 * 1024 * 1024);
    p.range(Problems.child(path, "authFailuresPerMinute"), authFailuresPerMinute, 1, 100_000);
    if (tls != null) {
      tls.validate(Problems.child(path, "tls"), p);
    }
    Map<String, Integer> names = new HashMap<>();
    for (int i = 0; i < tokens.size(); i++) {
      String tp = Problems.index(Problems.child(path, "tokens"), i);
      tokens.get(i).validate(tp, p);
      // The name is the actor in the audit log and in reload results: it must say who it was.
      Integer first =
          tokens.get(i).name() == null ? null : names.putIfAbsent(tokens.get(i).name(), i);
      if (first != null) {
        p.add(
            Problems.child(tp, "name"),
            "'"
                + tokens.get(i).name()
                + "' is already the name of "
                + Problems.index(Problems.child(path, "tokens"), first));
      }
    }
  }

  /** Checks the scopes of the tokens against the configuration's services and pools. */
  void validateScopes(String path, SluiceConfig config, Problems p) {
    for (int i = 0; i < tokens.size(); i++) {
      tokens.get(i).validateScope(Problems.index(Problems.child(path, "tokens"), i), config, p);
    }
  }

  private static boolean isLoopback(String literal) {
    try {
      return InetAddress.getByAddress(Addresses.parse(literal)).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  /**
   * How many connections the listener keeps (in all and per source address), how long a client may
   * take to send one whole request, headers and body, counted from its first byte, and how long a
   * kept-alive connection may stay silent between requests (never while one is being executed).
   */
  public record ConnectionLimits(
      Integer max, Integer perSource, Duration requestDeadline, Duration idleTimeout) {
    public ConnectionLimits {
      max = max == null ? 256 : max;
      // Left out, it follows a lower max: a max of 32 alone must not be refused for a default.
      perSource = perSource == null ? Math.min(64, max) : perSource;
      requestDeadline = requestDeadline == null ? Duration.ofSeconds(10) : requestDeadline;
      idleTimeout = idleTimeout == null ? Duration.ofSeconds(30) : idleTimeout;
    }

    /** 256 connections, 64 per source address, 10 s per request, 30 s idle between requests. */
    public static ConnectionLimits defaults() {
      return new ConnectionLimits(null, null, null, null);
    }

    void validate(String path, Problems p) {
      p.range(Problems.child(path, "max"), max, 2, 100_000);
      p.range(Problems.child(path, "perSource"), perSource, 1, max);
      if (requestDeadline.isNegative()
          || requestDeadline.isZero()
          || requestDeadline.compareTo(Duration.ofMinutes(10)) > 0) {
        p.add(Problems.child(path, "requestDeadline"), "must be more than 0 and at most 10m");
      }
      if (idleTimeout.compareTo(Duration.ofSeconds(1)) < 0
          || idleTimeout.compareTo(Duration.ofHours(1)) > 0) {
        p.add(Problems.child(path, "idleTimeout"), "must be at least 1s and at most 1h");
      }
    }
  }

  /**
   * A named bearer token with a role; {@code sha256} is the hex SHA-256 of the token. An operator
   * token may be limited to {@code services} (FQDNs) and {@code pools}; any token may {@code
   * expire} at an ISO-8601 UTC time. Tokens written without them are unlimited and never expire.
   */
  public record TokenConfig(
      String name,
      String role,
      String sha256,
      List<String> services,
      List<String> pools,
      String expires) {
    public TokenConfig {
      role = role == null ? null : role.toLowerCase(Locale.ROOT);
      sha256 = sha256 == null ? null : sha256.toLowerCase(Locale.ROOT);
      services =
          services == null
              ? null
              : services.stream()
                  .map(s -> s == null ? null : DomainNames.canonical(s.endsWith(".") ? s : s + "."))
                  .toList();
      // Null items are kept for validateScope to report by index.
      pools =
          pools == null
              ? null
              : java.util.Collections.unmodifiableList(new java.util.ArrayList<>(pools));
    }

    /** A token without scope or expiry. */
    public TokenConfig(String name, String role, String sha256) {
      this(name, role, sha256, null, null, null);
    }

    /** The scope of a limited token, or null for a token that may change everything. */
    public TokenScope scope() {
      return services == null && pools == null ? null : new TokenScope(services, pools);
    }

    /** When the token stops being accepted, or null when it never does. */
    public Instant expiresAt() {
      try {
        return expires == null ? null : Instant.parse(expires);
      } catch (DateTimeParseException e) {
        return null; // refused by validate()
      }
    }

    void validate(String path, Problems p) {
      p.required(Problems.child(path, "name"), name);
      if (p.required(Problems.child(path, "role"), role) && !ROLES.contains(role)) {
        p.add(
            Problems.child(path, "role"),
            "must be one of " + String.join(", ", ROLES) + "; was '" + role + "'");
      }
      if (p.required(Problems.child(path, "sha256"), sha256) && !sha256.matches("[0-9a-f]{64}")) {
        p.add(Problems.child(path, "sha256"), "must be 64 hex digits (the token's SHA-256)");
      }
      if (expires != null && expiresAt() == null) {
        p.add(
            Problems.child(path, "expires"),
            "must be an ISO-8601 UTC time such as 2027-01-31T00:00:00Z, was '" + expires + "'");
      }
    }

    /** The scope's services and pools must exist, and only an operator token has a scope. */
    void validateScope(String path, SluiceConfig config, Problems p) {
      if (scope() == null) {
        return;
      }
      if (role != null && !role.equals("operator")) {
        p.add(
            Problems.child(path, services != null ? "services" : "pools"),
            "only an operator token can be limited to services or pools (role is '"
                + role
                + "': an admin changes the configuration, a viewer changes nothing)");
      }
      if ((services == null || services.isEmpty()) && (pools == null || pools.isEmpty())) {
        p.add(
            Problems.child(path, services != null ? "services" : "pools"),
            "a limited token needs at least one service or pool");
      }
      java.util.Set<String> known = new java.util.TreeSet<>();
      for (ZoneConfig z : config.zones()) {
        for (ServiceConfig s : z.services()) {
          known.add(s.fqdn(z.origin()));
        }
      }
      List<String> svc = services == null ? List.of() : services;
      for (int i = 0; i < svc.size(); i++) {
        if (!known.contains(svc.get(i))) {
          p.add(
              Problems.index(Problems.child(path, "services"), i),
              "unknown service '" + svc.get(i) + "' (services: " + known + ")");
        }
      }
      List<String> pl = pools == null ? List.of() : pools;
      for (int i = 0; i < pl.size(); i++) {
        if (!config.pools().containsKey(pl.get(i))) {
          p.add(
              Problems.index(Problems.child(path, "pools"), i),
              "unknown pool '" + pl.get(i) + "' (pools: " + config.pools().keySet() + ")");
        }
      }
    }
  }

  /** TLS for the admin listener: a PEM certificate chain and its PEM (PKCS#8) private key. */
  public record TlsConfig(String certFile, String keyFile) {
    void validate(String path, Problems p) {
      p.required(Problems.child(path, "certFile"), certFile);
      p.required(Problems.child(path, "keyFile"), keyFile);
    }
  }
}
