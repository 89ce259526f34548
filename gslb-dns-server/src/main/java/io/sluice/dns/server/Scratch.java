package io.sluice.dns.server;

import io.netty.util.concurrent.FastThreadLocal;

/** One reusable input buffer per event-loop thread, so reading a query allocates nothing. */
final class Scratch {
  private static final FastThreadLocal<byte[]> BUFFER =
      new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
          return new byte[65536];
        }
      };

  private Scratch() {}

  /** A buffer of at least {@code len} bytes, owned by the calling thread until its next call. */
  static byte[] get(int len) {
    byte[] b = BUFFER.get();
    return b.length >= len ? b : new byte[len];
  }
}
