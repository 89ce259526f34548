package io.sluice.dns.https;

/** Reads what HTTP needs from an encoded DNS response without decoding it whole. */
final class DnsWire {
  private static final int SOA = 6;

  private DnsWire() {}

  /**
   * The HTTP freshness lifetime of response {@code m} (RFC 8484 §5.1): the smallest TTL in its
   * answer section; for a negative answer the SOA's negative TTL (the smaller of its TTL and its
   * MINIMUM, RFC 2308 §5); 0 when it has neither, or cannot be read.
   */
  static long minTtl(byte[] m) {
    try {
      int qd = u16(m, 4);
      int an = u16(m, 6);
      int ns = u16(m, 8);
      int p = 12;
      for (int i = 0; i < qd; i++) {
        p = skipName(m, p) + 4;
      }
      long min = Long.MAX_VALUE;
      for (int i = 0; i < an; i++) {
        p = skipName(m, p);
        min = Math.min(min, u32(m, p + 4));
        p += 10 + u16(m, p + 8);
      }
      if (an == 0) {
        for (int i = 0; i < ns; i++) {
          p = skipName(m, p);
          int type = u16(m, p);
          int rdlength = u16(m, p + 8);
          if (type == SOA) {
            long minimum = u32(m, p + 10 + rdlength - 4);
            min = Math.min(min, Math.min(u32(m, p + 4), minimum));
          }
          p += 10 + rdlength;
        }
      }
      return min == Long.MAX_VALUE ? 0 : min;
    } catch (ArrayIndexOutOfBoundsException e) {
      return 0;
    }
  }

  private static int skipName(byte[] m, int p) {
    while (true) {
      int len = m[p] & 0xff;
      if ((len & 0xc0) == 0xc0) {
        return p + 2;
      }
      if (len == 0) {
        return p + 1;
      }
      p += 1 + len;
    }
  }

  private static int u16(byte[] m, int p) {
    return (m[p] & 0xff) << 8 | (m[p + 1] & 0xff);
  }

  private static long u32(byte[] m, int p) {
    return ((long) u16(m, p) << 16 | u16(m, p + 2)) & 0x7fffffffL;
  }
}
