package io.sluice.server.app;

import io.sluice.core.config.AdminConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;

/**
 * A local admin token for a node whose configuration declares none, so the example works out of the
 * box without a token in the repository: it is generated once, kept in the state directory readable
 * by its owner only, and accepted with the admin role.
 */
final class AdminBootstrapToken {
  static final String FILE = "admin.token";

  private AdminBootstrapToken() {}

  /**
   * {@code config} with the local token as its only admin token when it declares none and the admin
   * API is enabled; otherwise unchanged. The token file is kept in {@code stateDir}. Applied on
   * start and on every reload, so the published configuration holds the tokens the API accepts.
   */
  static SluiceConfig applyTo(SluiceConfig config, Path stateDir) throws IOException {
    if (!config.admin().enabled() || !config.admin().tokens().isEmpty()) {
      return config;
    }
    return config.withAdmin(apply(config.admin(), stateDir));
  }

  /** {@code admin} with the local token added when it declares no tokens; otherwise unchanged. */
  static AdminConfig apply(AdminConfig admin, Path stateDir) throws IOException {
    if (!admin.tokens().isEmpty()) {
      return admin;
    }
    String token = readOrCreate(stateDir.resolve(FILE));
    List<AdminConfig.TokenConfig> tokens = new ArrayList<>();
    tokens.add(new AdminConfig.TokenConfig("local-admin", "admin", sha256(token)));
    return admin.withTokens(tokens);
  }

  static String readOrCreate(Path file) throws IOException {
    if (Files.exists(file)) {
      // Refuses a file other users could read or replace, and an empty one.
      return TokenFile.read(file);
    }
    Files.createDirectories(file.getParent());
    byte[] raw = new byte[32];
    new SecureRandom().nextBytes(raw);
    String token = Base64.getUrlEncoder().withoutPadding().encodeToString(raw);
    TokenFile.writePrivate(file, token + "\n");
    return token;
  }

  static String sha256(String token) {
    try {
      MessageDigest md = MessageDigest.getInstance("SHA-256");
      return HexFormat.of().formatHex(md.digest(token.getBytes(StandardCharsets.UTF_8)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
