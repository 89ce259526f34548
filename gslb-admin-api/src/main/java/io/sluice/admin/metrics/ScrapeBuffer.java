package io.sluice.admin.metrics;

import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * The bytes of one scrape, grown as written: an unsynchronized {@link OutputStream} (the registry
 * writes into it too) with the number formatting of the Prometheus text writer built in, so that
 * the families write each series from its cached label bytes without a String per line.
 */
final class ScrapeBuffer extends OutputStream {
  private static final byte[] ZERO = "0.0".getBytes(StandardCharsets.US_ASCII);

  /** Below this, a whole double prints as its digits and ".0" ({@link Double#toString}). */
  private static final double PLAIN_LIMIT = 1e7;

  private byte[] buf;
  private int size;

  ScrapeBuffer(int capacity) {
    buf = new byte[Math.max(capacity, 16)];
  }

  private void room(int n) {
    if (size + n > buf.length) {
      buf = Arrays.copyOf(buf, Math.max(buf.length * 2, size + n));
    }
  }

  @Override
  public void write(int b) {
    room(1);
    buf[size++] = (byte) b;
  }

  @Override
  public void write(byte[] b, int off, int len) {
    room(len);
    System.arraycopy(b, off, buf, size, len);
    size += len;
  }

  @Override
  public void write(byte[] b) {
    write(b, 0, b.length);
  }

  /** Writes {@code s}, which holds ASCII characters only. */
  void ascii(String s) {
    int n = s.length();
    room(n);
    for (int i = 0; i < n; i++) {
      buf[size++] = (byte) s.charAt(i);
    }
  }

  /** Writes {@code v} as the Prometheus text writer does: {@code Double.toString}, ±Inf. */
  void number(double v) {
    if (v == 0 && Double.doubleToRawLongBits(v) == 0) {
      write(ZERO);
    } else if (v > 0 && v < PLAIN_LIMIT && v == Math.rint(v)) {
      ascii(Long.toString((long) v));
      write('.');
      write('0');
    } else {
      ascii(SeriesFamily.format(v));
    }
  }

  /** Writes {@code v} as a whole number. */
  void number(long v) {
    ascii(Long.toString(v));
  }

  byte[] toByteArray() {
    return Arrays.copyOf(buf, size);
  }
}
