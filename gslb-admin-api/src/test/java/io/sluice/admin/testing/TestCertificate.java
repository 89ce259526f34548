package io.sluice.admin.testing;

import io.sluice.core.testing.SelfSignedKeyStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.util.Base64;

/**
 * A fresh self-signed certificate for 127.0.0.1 (its own CA), written as the PEM files {@code
 * admin.crt} and {@code admin.key} that {@code admin.tls} reads.
 */
public record TestCertificate(Path certFile, Path keyFile, Certificate certificate) {
  private static final char[] PASSWORD = "test-only".toCharArray();

  /** Creates the key store and both PEM files in {@code dir}. */
  public static TestCertificate create(Path dir) throws Exception {
    KeyStore ks = SelfSignedKeyStore.create(dir, "admin", "127.0.0.1", "ip:127.0.0.1", PASSWORD);
    Path cert = dir.resolve("admin.crt");
    Path key = dir.resolve("admin.key");
    Files.writeString(cert, pem("CERTIFICATE", ks.getCertificate("admin").getEncoded()));
    Files.writeString(
        key, pem("PRIVATE KEY", ((PrivateKey) ks.getKey("admin", PASSWORD)).getEncoded()));
    return new TestCertificate(cert, key, ks.getCertificate("admin"));
  }

  /** The {@code admin:} lines that serve this certificate, for {@link AdminFixture#config}. */
  public String adminTls() {
    return "  tls: { certFile: \"" + certFile + "\", keyFile: \"" + keyFile + "\" }";
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
