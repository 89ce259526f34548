package io.sluice.dns.response;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.CookieConfig;
import io.sluice.core.config.Problems;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.spi.CookieSecretExchange.Secrets;
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
public final class CookieSecrets {
  private static final int SECRET_BYTES = 16;
  private static final String SECRET_PATH = "dns.cookies.secretFile";
  private static final String PREVIOUS_PATH = "dns.cookies.previousSecretFile";

  private CookieSecrets() {}

  /**
   * The cookies of {@code config}, its files resolved against {@code stateDir}; a missing current
   * secret file is created. Every problem of both files is reported at once.
   */
  static Secrets load(CookieConfig config, Path stateDir, String source) throws ConfigException {
    Path current = stateDir.resolve(config.secretFile());
    Problems problems = new Problems(source);
    byte[] secret = null;
    try {
      secret = Files.exists(current) ? read(current, source, SECRET_PATH) : create(current, source);
    } catch (ConfigException e) {
      addAll(problems, e);
    }
    byte[] previous = readPrevious(config, stateDir, source, problems);
    problems.throwIfAny();
    return new Secrets(secret, previous);
  }

  /**
   * Adds to {@code problems} what the start would refuse in {@code config}'s secret files, without
   * creating any: a secret file that exists but is not usable, a previous secret file that is
   * missing or not usable. For {@code sluice check}.
   */
  public static void check(SluiceConfig config, Problems problems) {
    CookieConfig cookies = config.dns().cookies();
    if (!cookies.enabled()) {
      return;
    }
    Path dir = config.stateDirectory();
    Path current = dir.resolve(cookies.secretFile());
    if (Files.exists(current)) {
      try {
        read(current, "", SECRET_PATH);
      } catch (ConfigException e) {
        addAll(problems, e);
      }
    }
    readPrevious(cookies, dir, "", problems);
  }

  private static byte[] readPrevious(
      CookieConfig config, Path stateDir, String source, Problems problems) {
    if (config.previousSecretFile() == null) {
      return null;
    }
    try {
      return read(stateDir.resolve(config.previousSecretFile()), source, PREVIOUS_PATH);
    } catch (ConfigException e) {
      addAll(problems, e);
      return null;
    }
  }

  private static byte[] create(Path file, String source) throws ConfigException {
    try {
      Files.createDirectories(file.toAbsolutePath().getParent());
      byte[] fresh = new byte[SECRET_BYTES];
      new SecureRandom().nextBytes(fresh);
      TokenFile.writePrivate(file, HexFormat.of().formatHex(fresh) + "\n");
      return fresh;
    } catch (IOException e) {
      throw new ConfigException(
          source, SECRET_PATH, "cannot create cookie secret " + file + ": " + e.getMessage());
    }
  }

  private static byte[] read(Path file, String source, String path) throws ConfigException {
    if (!Files.exists(file)) {
      throw new ConfigException(source, path, "file " + file + " does not exist");
    }
    String hex;
    try {
      // Refuses a file other users could read or replace, and an empty one.
      hex = TokenFile.read(file);
    } catch (IOException e) {
      throw new ConfigException(source, path, "cannot use cookie secret: " + e.getMessage());
    }
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
  }

  private static void addAll(Problems problems, ConfigException e) {
    e.problems().forEach(p -> problems.add(p.path(), p.message()));
  }
}
