package io.sluice.core.config;

/**
 * DNS Cookies (RFC 7873), on when the section is written (unless {@code enabled: false}), with the
 * interoperable server cookie of RFC 9018: whether the server answers with a server cookie, whether
 * a UDP query with a client cookie but no valid server cookie gets BADCOOKIE instead of an answer
 * ({@code require}), the file holding the 128-bit secret (created on first start when missing;
 * relative to the state directory), and the previous secret's file, whose cookies stay valid while
 * a new secret is rolled out.
 */
public record CookieConfig(
    Boolean enabled, Boolean require, String secretFile, String previousSecretFile) {

  /** The secret file's default name, in the state directory. */
  public static final String DEFAULT_SECRET_FILE = "cookie.secret";

  public CookieConfig {
    // Writing the section turns cookies on; leaving it out (defaults()) keeps them off.
    enabled = enabled == null ? Boolean.TRUE : enabled;
    require = require == null ? Boolean.FALSE : require;
    secretFile = secretFile == null ? DEFAULT_SECRET_FILE : secretFile;
  }

  /** Cookies off (the default when {@code dns.cookies} is absent). */
  public static CookieConfig defaults() {
    return new CookieConfig(false, null, null, null);
  }

  void validate(String path, Problems p) {
    if (secretFile.isBlank()) {
      p.add(Problems.child(path, "secretFile"), "must not be empty");
    }
    if (previousSecretFile != null && previousSecretFile.isBlank()) {
      p.add(Problems.child(path, "previousSecretFile"), "must not be empty (leave it out)");
    }
    if (secretFile.equals(previousSecretFile)) {
      p.add(
          Problems.child(path, "previousSecretFile"),
          "must differ from secretFile (rotation keeps the old secret in its own file)");
    }
    if (require && !enabled) {
      p.add(Problems.child(path, "require"), "needs enabled: true");
    }
  }
}
