package io.sluice.core.config;

/** The DNSSEC signing algorithms Sluice generates and signs with, by their IANA mnemonic. */
public enum DnssecAlgorithm {
  /** ECDSA on P-256 with SHA-256 (algorithm 13, RFC 6605): the default, widely validated. */
  ECDSAP256SHA256(13),
  /** Ed25519 (algorithm 15, RFC 8080): smaller signatures, validated by most current resolvers. */
  ED25519(15);

  private final int number;

  DnssecAlgorithm(int number) {
    this.number = number;
  }

  /** The algorithm number in DNSKEY, RRSIG and DS records and in BIND key-file names. */
  public int number() {
    return number;
  }

  /** The algorithm with IANA number {@code n}, or null when Sluice does not support it. */
  public static DnssecAlgorithm ofNumber(int n) {
    for (DnssecAlgorithm a : values()) {
      if (a.number == n) {
        return a;
      }
    }
    return null;
  }
}
