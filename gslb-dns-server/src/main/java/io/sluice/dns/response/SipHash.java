package io.sluice.dns.response;

/**
 * SipHash-2-4 (Aumasson and Bernstein, 2012), the keyed hash RFC 9018 builds server cookies with: a
 * 128-bit key, two compression rounds per 8-byte word and four finalization rounds, giving 64 bits.
 * Written for two consecutive byte ranges so a cookie is hashed where it lies in the packet,
 * without copying it next to the client address.
 */
final class SipHash {
  private SipHash() {}

  /** The hash of {@code len} bytes of {@code m} from {@code off} under key {@code k0, k1}. */
  static long hash(long k0, long k1, byte[] m, int off, int len) {
    int head = len & ~7;
    return hash(k0, k1, m, off, head, m, off + head, len - head);
  }

  /**
   * The hash of {@code aLen} bytes of {@code a} followed by {@code bLen} bytes of {@code b}; {@code
   * aLen} must be a multiple of 8.
   */
  static long hash(long k0, long k1, byte[] a, int aOff, int aLen, byte[] b, int bOff, int bLen) {
    if ((aLen & 7) != 0) {
      throw new IllegalArgumentException("first range must be whole words, was " + aLen);
    }
    // Never escapes: the JIT keeps the four words in registers.
    State s = new State(k0, k1);
    int words = aLen + (bLen & ~7);
    for (int i = 0; i < words; i += 8) {
      s.compress(i < aLen ? littleEndian(a, aOff + i) : littleEndian(b, bOff + i - aLen));
    }
    // The last word: the remaining bytes, and the total length modulo 256 in the top byte.
    long last = ((long) (aLen + bLen) & 0xff) << 56;
    int rest = bLen & 7;
    for (int i = 0; i < rest; i++) {
      last |= (b[bOff + (bLen - rest) + i] & 0xffL) << (8 * i);
    }
    s.compress(last);
    s.v2 ^= 0xff;
    for (int r = 0; r < 4; r++) {
      s.round();
    }
    return s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
  }

  /** The four words of SipHash's internal state. */
  private static final class State {
    long v0;
    long v1;
    long v2;
    long v3;

    State(long k0, long k1) {
      v0 = 0x736f6d6570736575L ^ k0;
      v1 = 0x646f72616e646f6dL ^ k1;
      v2 = 0x6c7967656e657261L ^ k0;
      v3 = 0x7465646279746573L ^ k1;
    }

    /** Absorbs one message word with two rounds (the "2" of SipHash-2-4). */
    void compress(long m) {
      v3 ^= m;
      round();
      round();
      v0 ^= m;
    }

    void round() {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13) ^ v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16) ^ v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21) ^ v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17) ^ v2;
      v2 = Long.rotateLeft(v2, 32);
    }
  }

  /** The 8 bytes of {@code b} from {@code off} read as a little-endian word, as SipHash reads. */
  static long littleEndian(byte[] b, int off) {
    long v = 0;
    for (int i = 7; i >= 0; i--) {
      v = (v << 8) | (b[off + i] & 0xffL);
    }
    return v;
  }
}
