package io.sluice.core.config;

import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The admin REST API listener: address, bearer tokens (stored as SHA-256 hashes only), optional
 * TLS, the request body limit, the failed-authentication rate limit and whether {@code /metrics}
 * needs a token.
 */
public record AdminConfig(
    Boolean enabled,
    String listen,
    Integer port,
    List<TokenConfig> tokens,
    TlsConfig tls,
    Integer maxBodyBytes,
    Integer authFailuresPerMinute,
    Boolean metricsPublic) {

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
  }

  /** The listener without TLS and with default limits. */
  public AdminConfig(Boolean enabled, String listen, Integer port, List<TokenConfig> tokens) {
    this(enabled, listen, port, tokens, null, null, null, null);
  }

  public static AdminConfig defaults() {
    return new AdminConfig(null, null, null, null);
  }

  /** The same settings on another port (a command-line override). */
  public AdminConfig withPort(int newPort) {
    return new AdminConfig(
        enabled, listen, newPort, tokens, tls, maxBodyBytes, authFailuresPerMinute, metricsPublic);
  }

  /** The same settings with other tokens. */
  public AdminConfig withTokens(List<TokenConfig> newTokens) {
    return new AdminConfig(
        enabled, listen, port, newTokens, tls, maxBodyBytes, authFailuresPerMinute, metricsPublic);
  }

  void validate(String path, Problems p) {
    if (!Addresses.isLiteral(listen)) {
      p.add(Problems.child(path, "listen"), "must be an IP address, was '" + listen + "'");
    }
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

  /** A named bearer token with a role; {@code sha256} is the hex SHA-256 of the token. */
  public record TokenConfig(String name, String role, String sha256) {
    public TokenConfig {
      role = role == null ? null : role.toLowerCase(Locale.ROOT);
      sha256 = sha256 == null ? null : sha256.toLowerCase(Locale.ROOT);
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
