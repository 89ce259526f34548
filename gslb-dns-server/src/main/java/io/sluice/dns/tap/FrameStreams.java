package io.sluice.dns.tap;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The Frame Streams framing dnstap travels in: data frames are a 4-byte big-endian length and the
 * payload; control frames start with a zero length (the escape), then their own length, type and
 * fields (the content type {@code protobuf:dnstap.Dnstap}). A file holds START, the data frames and
 * STOP; a socket writer first sends READY and waits for ACCEPT, and ends with STOP and FINISH.
 */
final class FrameStreams {
  static final String CONTENT_TYPE = "protobuf:dnstap.Dnstap";
  static final int ACCEPT = 1;
  static final int START = 2;
  static final int STOP = 3;
  static final int READY = 4;
  static final int FINISH = 5;
  private static final int FIELD_CONTENT_TYPE = 1;

  private FrameStreams() {}

  /** A control frame of {@code type}, with the content type unless it is STOP or FINISH. */
  static byte[] control(int type) {
    ByteArrayOutputStream body = new ByteArrayOutputStream();
    int32(body, type);
    if (type != STOP && type != FINISH) {
      byte[] ct = CONTENT_TYPE.getBytes(StandardCharsets.US_ASCII);
      int32(body, FIELD_CONTENT_TYPE);
      int32(body, ct.length);
      body.write(ct, 0, ct.length);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    int32(out, 0);
    int32(out, body.size());
    out.writeBytes(body.toByteArray());
    return out.toByteArray();
  }

  /** Reads one control frame from a socket reader and returns its type. */
  static int readControl(DataInputStream in) throws IOException {
    int escape = in.readInt();
    if (escape != 0) {
      throw new IOException("expected a control frame, got a data frame of " + escape + " bytes");
    }
    int length = in.readInt();
    if (length < 4 || length > 1 << 16) {
      throw new IOException("control frame of bad length " + length);
    }
    byte[] body = new byte[length];
    in.readFully(body);
    return (body[0] & 0xff) << 24 | (body[1] & 0xff) << 16 | (body[2] & 0xff) << 8 | body[3] & 0xff;
  }

  static void int32(ByteArrayOutputStream out, int v) {
    out.write(v >>> 24);
    out.write(v >>> 16);
    out.write(v >>> 8);
    out.write(v);
  }
}
