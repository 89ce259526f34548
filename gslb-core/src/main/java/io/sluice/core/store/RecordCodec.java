package io.sluice.core.store;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The frame around every stored record: magic, payload length, CRC32C of length and payload, then
 * the payload. A frame whose length or checksum does not match is torn or corrupt and is never
 * applied.
 */
final class RecordCodec {
  static final int MAGIC = 0x534c4a31; // "SLJ1"
  static final int HEADER = 12;
  static final int MAX_PAYLOAD = 64 * 1024 * 1024;

  private RecordCodec() {}

  static ByteBuffer frame(byte[] payload) {
    ByteBuffer b = ByteBuffer.allocate(HEADER + payload.length);
    b.putInt(MAGIC).putInt(payload.length).putInt(checksum(payload.length, payload)).put(payload);
    return b.flip();
  }

  static int checksum(int length, byte[] payload) {
    CRC32C crc = new CRC32C();
    crc.update(ByteBuffer.allocate(4).putInt(0, length));
    crc.update(payload);
    return (int) crc.getValue();
  }

  /**
   * Decodes the frame at the start of {@code buf}, advancing it past the frame; returns null
   * (leaving the position unchanged) when what follows is not one whole, intact frame.
   */
  static byte[] next(ByteBuffer buf) {
    int start = buf.position();
    if (buf.remaining() < HEADER) {
      return null;
    }
    int magic = buf.getInt();
    int length = buf.getInt();
    int crc = buf.getInt();
    if (magic != MAGIC || length < 0 || length > MAX_PAYLOAD || buf.remaining() < length) {
      buf.position(start);
      return null;
    }
    byte[] payload = new byte[length];
    buf.get(payload);
    if (checksum(length, payload) != crc) {
      buf.position(start);
      return null;
    }
    return payload;
  }

  /**
   * The offset of the first whole, intact frame at or after {@code from}, or -1: tells damage in
   * the middle of a journal (intact frames follow) from a torn tail (nothing intact follows).
   */
  static int nextIntactFrom(byte[] bytes, int from) {
    ByteBuffer b = ByteBuffer.wrap(bytes);
    for (int i = Math.max(0, from); i + HEADER <= bytes.length; i++) {
      if (b.getInt(i) == MAGIC) {
        b.position(i);
        if (next(b) != null) {
          return i;
        }
      }
    }
    return -1;
  }
}
