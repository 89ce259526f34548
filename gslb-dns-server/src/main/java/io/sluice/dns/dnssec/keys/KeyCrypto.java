package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import java.math.BigInteger;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPrivateKey;
import java.security.interfaces.ECPublicKey;
import java.security.interfaces.EdECPrivateKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPrivateKeySpec;
import java.security.spec.EdECPrivateKeySpec;
import java.security.spec.NamedParameterSpec;
import java.util.Arrays;

/**
 * The private-key halves of the algorithms Sluice signs with, as BIND's key files hold them: the
 * 32-byte scalar of an ECDSA P-256 key and the 32-byte seed of an Ed25519 key (RFC 6605, RFC 8080).
 */
final class KeyCrypto {
  private static final SecureRandom RANDOM = new SecureRandom();

  // The DER prefix some ldns versions wrote in front of an Ed25519 seed (a PKCS#8 key).
  private static final byte[] ED25519_PKCS8_PREFIX = {
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20
  };

  private KeyCrypto() {}

  /** A fresh key pair of {@code algorithm}. */
  static KeyPair generate(DnssecAlgorithm algorithm) throws GeneralSecurityException {
    return switch (algorithm) {
      case ECDSAP256SHA256 -> {
        KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
        g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
        yield g.generateKeyPair();
      }
      case ED25519 -> {
        KeyPairGenerator g = KeyPairGenerator.getInstance("Ed25519");
        g.initialize(NamedParameterSpec.ED25519, RANDOM);
        yield g.generateKeyPair();
      }
    };
  }

  /** The bytes a key file's {@code PrivateKey:} field holds for {@code key}. */
  static byte[] privateBytes(PrivateKey key) {
    if (key instanceof ECPrivateKey ec) {
      return unsigned(ec.getS(), 32);
    }
    if (key instanceof EdECPrivateKey ed) {
      return ed.getBytes().orElseThrow(() -> new IllegalArgumentException("no Ed25519 seed"));
    }
    throw new IllegalArgumentException("unsupported private key " + key.getAlgorithm());
  }

  /**
   * The private key of {@code algorithm} held in {@code bytes}; {@code publicKey} (the DNSKEY's)
   * gives the curve. Throws {@link IllegalArgumentException} saying what is wrong with the bytes.
   */
  static PrivateKey privateKey(DnssecAlgorithm algorithm, byte[] bytes, PublicKey publicKey)
      throws GeneralSecurityException {
    return switch (algorithm) {
      case ECDSAP256SHA256 -> {
        if (bytes.length != 32) {
          throw new IllegalArgumentException(
              "must be 32 bytes for ECDSAP256SHA256, was " + bytes.length);
        }
        ECPublicKey ec = (ECPublicKey) publicKey;
        yield KeyFactory.getInstance("EC")
            .generatePrivate(new ECPrivateKeySpec(new BigInteger(1, bytes), ec.getParams()));
      }
      case ED25519 -> {
        byte[] seed = bytes;
        if (bytes.length == 48
            && Arrays.equals(
                Arrays.copyOf(bytes, ED25519_PKCS8_PREFIX.length), ED25519_PKCS8_PREFIX)) {
          seed = Arrays.copyOfRange(bytes, ED25519_PKCS8_PREFIX.length, bytes.length);
        }
        if (seed.length != 32) {
          throw new IllegalArgumentException("must be 32 bytes for ED25519, was " + bytes.length);
        }
        yield KeyFactory.getInstance("Ed25519")
            .generatePrivate(new EdECPrivateKeySpec(NamedParameterSpec.ED25519, seed));
      }
    };
  }

  /** True when {@code privateKey} is the private half of {@code publicKey}: a signature checks. */
  static boolean matches(DnssecAlgorithm algorithm, PrivateKey privateKey, PublicKey publicKey)
      throws GeneralSecurityException {
    String name = algorithm == DnssecAlgorithm.ED25519 ? "Ed25519" : "SHA256withECDSA";
    byte[] probe = "sluice key pair check".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
    Signature s = Signature.getInstance(name);
    s.initSign(privateKey);
    s.update(probe);
    byte[] sig = s.sign();
    Signature v = Signature.getInstance(name);
    v.initVerify(publicKey);
    v.update(probe);
    return v.verify(sig);
  }

  private static byte[] unsigned(BigInteger n, int length) {
    byte[] b = n.toByteArray();
    if (b.length == length) {
      return b;
    }
    byte[] out = new byte[length];
    int copy = Math.min(b.length, length);
    System.arraycopy(b, b.length - copy, out, length - copy, copy);
    return out;
  }
}
