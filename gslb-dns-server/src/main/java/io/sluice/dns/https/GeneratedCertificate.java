package io.sluice.dns.https;

import io.sluice.core.config.Addresses;
import io.sluice.core.config.TokenFile;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.List;

/**
 * The self-signed certificate of an HTTPS listener configured without {@code certFile}/{@code
 * keyFile}: an ECDSA P-256 key and a certificate for {@code localhost} and the given addresses,
 * valid for a year, written as PEM into the state directory on first start (the key readable by its
 * owner only) and regenerated when it expires within a week. It is built with the JDK alone (a
 * minimal DER encoder and {@code SHA256withECDSA}), so no external tool or library is needed at run
 * time; the JDK's own parser then reads it back, which checks the encoding.
 */
final class GeneratedCertificate {
  static final String CERT_FILE = "https.crt";
  static final String KEY_FILE = "https.key";

  private static final Duration VALIDITY = Duration.ofDays(365);
  private static final Duration RENEW_BEFORE = Duration.ofDays(7);

  // Object identifiers, DER-encoded content octets.
  private static final byte[] ECDSA_WITH_SHA256 = oid(1, 2, 840, 10045, 4, 3, 2);
  private static final byte[] COMMON_NAME = oid(2, 5, 4, 3);
  private static final byte[] SUBJECT_ALT_NAME = oid(2, 5, 29, 17);
  private static final byte[] BASIC_CONSTRAINTS = oid(2, 5, 29, 19);

  private GeneratedCertificate() {}

  /**
   * The certificate and key files in {@code stateDir}, created (or renewed when they expire soon)
   * for {@code addresses} besides {@code localhost}, 127.0.0.1 and ::1.
   */
  static Path[] ensure(Path stateDir, List<String> addresses, Instant now)
      throws IOException, GeneralSecurityException {
    Path cert = stateDir.resolve(CERT_FILE);
    Path key = stateDir.resolve(KEY_FILE);
    if (Files.exists(cert) && Files.exists(key) && !expiresSoon(cert, now)) {
      return new Path[] {cert, key};
    }
    Files.createDirectories(stateDir);
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), new SecureRandom());
    KeyPair pair = g.generateKeyPair();
    byte[] der = certificate(pair, addresses, now);
    // The key first: a certificate on disk always has its key beside it.
    TokenFile.writePrivate(key, pem("PRIVATE KEY", pair.getPrivate().getEncoded()));
    Path tmp = Files.createTempFile(stateDir, CERT_FILE, ".tmp");
    try {
      Files.writeString(tmp, pem("CERTIFICATE", der), StandardCharsets.US_ASCII);
      // Public: clients may be handed it to trust (curl --cacert, kdig +tls-ca).
      setMode(tmp, "rw-r--r--");
      Files.move(tmp, cert, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(tmp);
    }
    return new Path[] {cert, key};
  }

  private static void setMode(Path file, String mode) throws IOException {
    try {
      Files.setPosixFilePermissions(
          file, java.nio.file.attribute.PosixFilePermissions.fromString(mode));
    } catch (UnsupportedOperationException e) {
      // Not a POSIX file system.
    }
  }

  private static boolean expiresSoon(Path cert, Instant now)
      throws IOException, GeneralSecurityException {
    X509Certificate c = parse(Files.readAllBytes(cert));
    return c.getNotAfter().toInstant().isBefore(now.plus(RENEW_BEFORE));
  }

  static X509Certificate parse(byte[] pemOrDer) throws GeneralSecurityException {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pemOrDer));
  }

  /** A DER X.509 v3 certificate for {@code pair}, signed by itself. */
  static byte[] certificate(KeyPair pair, List<String> addresses, Instant now)
      throws GeneralSecurityException, IOException {
    byte[] algorithm = seq(tlv(0x06, ECDSA_WITH_SHA256));
    byte[] name = seq(set(seq(tlv(0x06, COMMON_NAME), utf8("Sluice DNS over HTTPS"))));
    byte[] serial = new byte[16];
    new SecureRandom().nextBytes(serial);
    serial[0] &= 0x7f; // positive
    Instant from = now.minus(Duration.ofHours(1));
    byte[] tbs =
        seq(
            tlv(0xa0, tlv(0x02, new byte[] {2})), // v3
            tlv(0x02, new BigInteger(serial).toByteArray()),
            algorithm,
            name,
            seq(utcTime(from), utcTime(from.plus(VALIDITY))),
            name,
            pair.getPublic().getEncoded(), // SubjectPublicKeyInfo
            tlv(0xa3, seq(subjectAltNames(addresses), basicConstraints())));
    Signature s = Signature.getInstance("SHA256withECDSA");
    s.initSign(pair.getPrivate());
    s.update(tbs);
    byte[] sig = s.sign();
    byte[] bits = new byte[sig.length + 1]; // no unused bits
    System.arraycopy(sig, 0, bits, 1, sig.length);
    byte[] der = seq(tbs, algorithm, tlv(0x03, bits));
    // The JDK's parser checks the encoding, and the signature proves the key matches.
    parse(der).verify(pair.getPublic());
    return der;
  }

  private static byte[] subjectAltNames(List<String> addresses) throws IOException {
    ByteArrayOutputStream names = new ByteArrayOutputStream();
    names.write(tlv(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)));
    java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>();
    all.add("127.0.0.1");
    all.add("::1");
    all.addAll(addresses);
    java.util.Set<InetAddress> seen = new java.util.HashSet<>();
    for (String a : all) {
      InetAddress ip = Addresses.of(a); // literals only: validated config
      if (!ip.isAnyLocalAddress() && seen.add(ip)) {
        names.write(tlv(0x87, ip.getAddress()));
      }
    }
    return seq(tlv(0x06, SUBJECT_ALT_NAME), tlv(0x04, tlv(0x30, names.toByteArray())));
  }

  private static byte[] basicConstraints() {
    // CA:FALSE is the empty sequence.
    return seq(tlv(0x06, BASIC_CONSTRAINTS), tlv(0x04, seq()));
  }

  private static byte[] utcTime(Instant t) {
    String s = DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC).format(t);
    return tlv(0x17, s.getBytes(StandardCharsets.US_ASCII));
  }

  private static byte[] utf8(String s) {
    return tlv(0x0c, s.getBytes(StandardCharsets.UTF_8));
  }

  private static byte[] seq(byte[]... parts) {
    return tlv(0x30, concat(parts));
  }

  private static byte[] set(byte[]... parts) {
    return tlv(0x31, concat(parts));
  }

  private static byte[] concat(byte[]... parts) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    for (byte[] p : parts) {
      out.writeBytes(p);
    }
    return out.toByteArray();
  }

  /** One DER element: tag, definite length, content. */
  static byte[] tlv(int tag, byte[] content) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
    out.write(tag);
    int n = content.length;
    if (n < 0x80) {
      out.write(n);
    } else {
      int bytes = n < 0x100 ? 1 : n < 0x10000 ? 2 : 3;
      out.write(0x80 | bytes);
      for (int i = bytes - 1; i >= 0; i--) {
        out.write(n >>> (8 * i));
      }
    }
    out.writeBytes(content);
    return out.toByteArray();
  }

  /** The content octets of an object identifier. */
  static byte[] oid(int... arcs) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(arcs[0] * 40 + arcs[1]);
    for (int i = 2; i < arcs.length; i++) {
      int v = arcs[i];
      int groups = 1;
      while ((v >>> (7 * groups)) != 0) {
        groups++;
      }
      for (int g = groups - 1; g >= 0; g--) {
        out.write(((v >>> (7 * g)) & 0x7f) | (g == 0 ? 0 : 0x80));
      }
    }
    return out.toByteArray();
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN "
        + type
        + "-----\n"
        + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END "
        + type
        + "-----\n";
  }
}
