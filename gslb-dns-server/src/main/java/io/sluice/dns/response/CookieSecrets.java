package io.sluice.dns.response;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.CookieConfig;
import io.sluice.core.config.TokenFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;

/**
 * The server cookie secrets on disk: 32 hex digits (128 bits) on the first line of a file readable
 * by its owner only. The current secret's file is created with a random secret when it does not
 * exist, so a node has cookies from its first start; the previous secret's file must exist when it
 * is configured. Nodes of one cluster share cookies by holding the same file.
 */
final class CookieSecrets {
  private static final int SECRET_BYTES = 16;

  private CookieSecrets() {}

  /** The cookies of {@code config}, its files resolved against {@code stateDir}. */
  static ServerCookies load(CookieConfig config, Path stateDir, String source)
      throws ConfigException {
    Path current = stateDir.resolve(config.secretFile());
    byte[] secret = read(current, true, source, "dns.cookies.secretFile");
    byte[] previous =
        config.previousSecretFile() == null
            ? null
            : read(
                stateDir.resolve(config.previousSecretFile()),
                false,
                source,
                "dns.cookies.previousSecretFile");
    return new ServerCookies(secret, previous);
  }

  private static byte[] read(Path file, boolean create, String source, String path)
      throws ConfigException {
    try {
      if (create && !Files.exists(file)) {
        Files.createDirectories(file.toAbsolutePath().getParent());
        byte[] fresh = new byte[SECRET_BYTES];
        new SecureRandom().nextBytes(fresh);
        TokenFile.writePrivate(file, HexFormat.of().formatHex(fresh) + "\n");
        return fresh;
      }
      if (!Files.exists(file)) {
        throw new ConfigException(source, path, "file " + file + " does not exist");
      }
      // Refuses a file other users could read or replace, and an empty one.
      String hex = TokenFile.read(file);
      if (!hex.matches("[0-9a-fA-F]{32}")) {
        throw new ConfigException(
            source,
            path,
            "file "
                + file
                + " must hold 32 hex digits (a 128-bit secret) on its first line, e.g. from"
                + " 'openssl rand -hex 16'");
      }
      return HexFormat.of().parseHex(hex);
    } catch (IOException e) {
      throw new ConfigException(source, path, "cannot use cookie secret: " + e.getMessage());
    }
  }
}
