package io.sluice.core.testing;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.concurrent.TimeUnit;

/** A PKCS12 key store with a fresh self-signed EC certificate, made by the JDK's keytool. */
public final class SelfSignedKeyStore {
  private SelfSignedKeyStore() {}

  /**
   * Creates {@code dir/alias.p12} holding a certificate for {@code commonName} with the subject
   * alternative names {@code san} (keytool syntax, such as {@code dns:a.test,ip:127.0.0.1}).
   */
  public static KeyStore create(
      Path dir, String alias, String commonName, String san, char[] password)
      throws IOException, InterruptedException, GeneralSecurityException {
    Path store = dir.resolve(alias + ".p12");
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair",
                "-alias",
                alias,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + commonName,
                "-ext",
                "san=" + san,
                "-validity",
                "2",
                "-storetype",
                "PKCS12",
                "-keystore",
                store.toString(),
                "-storepass",
                new String(password),
                "-keypass",
                new String(password))
            .redirectErrorStream(true)
            .start();
    String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(60, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new IOException("keytool timed out");
    }
    if (p.exitValue() != 0) {
      throw new IOException("keytool failed: " + output);
    }
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(store)) {
      ks.load(in, password);
    }
    return ks;
  }
}
