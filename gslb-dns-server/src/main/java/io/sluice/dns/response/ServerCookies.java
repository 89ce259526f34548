package io.sluice.dns.response;

/**
 * Server cookies (RFC 7873) made and checked the interoperable way of RFC 9018 §4: version 1, three
 * reserved bytes, a 32-bit timestamp in seconds and SipHash-2-4 of the client cookie, those eight
 * bytes and the client's address under a 128-bit secret. Every node holding the same secret makes
 * and accepts the same cookies, whatever the server software. A cookie made with the previous
 * secret stays valid during a rotation; it is replaced by one made with the current secret.
 */
final class ServerCookies {
  /** The COOKIE option code (RFC 7873 §4). */
  static final int OPTION = 10;

  static final int CLIENT_LENGTH = 8;

  /** A client cookie followed by an RFC 9018 server cookie. */
  static final int FULL_LENGTH = CLIENT_LENGTH + 16;

  private static final int VERSION = 1;

  /** RFC 9018 §4.3: older than an hour, or more than five minutes ahead, is not valid. */
  private static final int MAX_AGE = 3600;

  private static final int MAX_AHEAD = 300;

  /** RFC 9018 §4.3: a cookie older than half an hour is replaced by a new one. */
  private static final int RENEW_AGE = 1800;

  /** The check of a presented cookie: not one of ours (or too old), valid, valid and reusable. */
  static final int INVALID = 0;

  static final int VALID = 1;
  static final int REUSABLE = 2;

  private final long k0;
  private final long k1;
  private final boolean hasPrevious;
  private final long p0;
  private final long p1;

  /**
   * Cookies under {@code secret} (16 bytes), also accepting those made under {@code previous} (16
   * bytes, or null when there is none).
   */
  ServerCookies(byte[] secret, byte[] previous) {
    if (secret.length != 16 || (previous != null && previous.length != 16)) {
      throw new IllegalArgumentException("a cookie secret is 16 bytes");
    }
    k0 = SipHash.littleEndian(secret, 0);
    k1 = SipHash.littleEndian(secret, 8);
    hasPrevious = previous != null;
    p0 = hasPrevious ? SipHash.littleEndian(previous, 0) : 0;
    p1 = hasPrevious ? SipHash.littleEndian(previous, 8) : 0;
  }

  /**
   * Checks the cookie option data of {@code len} bytes at {@code at} in {@code in} (a client
   * cookie, perhaps with a server cookie) for a client at {@code ip} at {@code now} (seconds since
   * the epoch): {@link #INVALID}, {@link #VALID}, or {@link #REUSABLE} when it is valid, made with
   * the current secret and young enough to be sent back as it is.
   */
  int check(byte[] in, int at, int len, byte[] ip, long now) {
    if (len != FULL_LENGTH || in[at + CLIENT_LENGTH] != VERSION) {
      return INVALID;
    }
    int stamp = u32(in, at + CLIENT_LENGTH + 4);
    // Serial number arithmetic (RFC 1982): the timestamp wraps in 2106.
    int age = (int) now - stamp;
    if (age > MAX_AGE || age < -MAX_AHEAD) {
      return INVALID;
    }
    // The hash bytes are the little-endian word SipHash produced.
    long hash = SipHash.littleEndian(in, at + 16);
    if (hash == SipHash.hash(k0, k1, in, at, 16, ip, 0, ip.length)) {
      return age <= RENEW_AGE ? REUSABLE : VALID;
    }
    return hasPrevious && hash == SipHash.hash(p0, p1, in, at, 16, ip, 0, ip.length)
        ? VALID
        : INVALID;
  }

  /**
   * The whole COOKIE option a response carries: the client cookie at {@code at} in {@code in} and a
   * server cookie for {@code ip}, made now unless {@code reuse}, when the presented one is sent
   * back.
   */
  byte[] option(byte[] in, int at, int len, byte[] ip, long now, boolean reuse) {
    byte[] out = new byte[4 + FULL_LENGTH];
    out[1] = OPTION;
    out[3] = FULL_LENGTH;
    if (reuse) {
      System.arraycopy(in, at, out, 4, FULL_LENGTH);
      return out;
    }
    System.arraycopy(in, at, out, 4, CLIENT_LENGTH);
    out[12] = VERSION;
    out[16] = (byte) (now >>> 24);
    out[17] = (byte) (now >>> 16);
    out[18] = (byte) (now >>> 8);
    out[19] = (byte) now;
    long hash = SipHash.hash(k0, k1, out, 4, 16, ip, 0, ip.length);
    for (int i = 0; i < 8; i++) {
      out[20 + i] = (byte) (hash >>> (8 * i));
    }
    return out;
  }

  private static int u32(byte[] b, int off) {
    return (b[off] & 0xff) << 24
        | (b[off + 1] & 0xff) << 16
        | (b[off + 2] & 0xff) << 8
        | (b[off + 3] & 0xff);
  }
}
