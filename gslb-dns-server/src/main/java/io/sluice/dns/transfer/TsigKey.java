package io.sluice.dns.transfer;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.Problems;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.config.TransferConfig;
import io.sluice.core.config.TsigAlgorithm;
import io.sluice.core.config.TsigConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.Base64;
import org.xbill.DNS.Name;
import org.xbill.DNS.TSIG;

/**
 * A TSIG key (RFC 8945) with its secret, read from a file readable by its owner only that holds the
 * base64 secret on its first line (as {@code dig -y} and {@code tsig-keygen} print it). A missing
 * file is created with a random secret as long as the hash, so the shipped example has a key from
 * its first start and no secret is ever committed.
 */
public record TsigKey(Name name, TsigAlgorithm algorithm, byte[] secret, Path file) {

  /** The dnsjava signer and verifier of this key. */
  public TSIG tsig() {
    return new TSIG(TSIG.algorithmToName(algorithm.text()), name, secret);
  }

  /** The key as {@code dig -y} takes it: {@code algorithm:name:base64}. */
  public String digArgument() {
    return algorithm.text() + ":" + name + ":" + Base64.getEncoder().encodeToString(secret);
  }

  /**
   * Adds to {@code problems} what the start would refuse in the TSIG secret files of {@code
   * config}'s zones, creating none: a file that exists but is not usable. For {@code sluice check}.
   */
  public static void check(SluiceConfig config, Problems problems) {
    for (int i = 0; i < config.zones().size(); i++) {
      TransferConfig t = config.zones().get(i).transfer();
      if (t == null || t.tsig() == null || t.tsig().name() == null) {
        continue;
      }
      if (Files.exists(config.stateDirectory().resolve(t.tsig().secretFile()))) {
        try {
          load(
              t.tsig(),
              config.stateDirectory(),
              "",
              Problems.child(Problems.child(Problems.index("zones", i), "transfer"), "tsig"));
        } catch (ConfigException e) {
          e.problems().forEach(p -> problems.add(p.path(), p.message()));
        }
      }
    }
  }

  /**
   * The key {@code config} names, its file resolved against {@code stateDir} and created when
   * missing; {@code path} names the config field in errors.
   */
  static TsigKey load(TsigConfig config, Path stateDir, String source, String path)
      throws ConfigException {
    Path file = stateDir.resolve(config.secretFile());
    Name name = Name.fromConstantString(config.name());
    try {
      if (!Files.exists(file)) {
        Files.createDirectories(file.toAbsolutePath().getParent());
        byte[] fresh = new byte[config.algorithm().secretBytes()];
        new SecureRandom().nextBytes(fresh);
        TokenFile.writePrivate(file, Base64.getEncoder().encodeToString(fresh) + "\n");
        return new TsigKey(name, config.algorithm(), fresh, file);
      }
      String text = TokenFile.read(file);
      byte[] secret;
      try {
        secret = Base64.getDecoder().decode(text);
      } catch (IllegalArgumentException e) {
        throw new ConfigException(
            source,
            path + ".secretFile",
            "file " + file + " must hold a base64 secret on its first line: " + e.getMessage());
      }
      if (secret.length < 16) {
        throw new ConfigException(
            source,
            path + ".secretFile",
            "the secret in " + file + " is " + secret.length + " bytes; at least 16 are needed");
      }
      return new TsigKey(name, config.algorithm(), secret, file);
    } catch (IOException e) {
      throw new ConfigException(
          source, path + ".secretFile", "cannot use TSIG secret " + file + ": " + e.getMessage());
    }
  }
}
