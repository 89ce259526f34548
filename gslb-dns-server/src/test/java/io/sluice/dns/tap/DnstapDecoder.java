package io.sluice.dns.tap;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a dnstap Frame Streams file back, independently of the writer: the START frame and its
 * content type, every data frame decoded as a {@code dnstap.Dnstap} protobuf message, and the STOP
 * frame. Unknown protobuf fields are skipped as a protobuf reader would.
 */
public final class DnstapDecoder {
  private DnstapDecoder() {}

  /** One decoded {@code Dnstap} message: the fields of its {@code Message}. */
  public record Tap(
      String identity,
      String version,
      int dnstapType,
      int type,
      int family,
      int protocol,
      byte[] queryAddress,
      long queryTimeSec,
      int queryTimeNsec,
      byte[] queryMessage,
      long responseTimeSec,
      byte[] responseMessage) {}

  /** The stream: its content type, the messages, and whether it ended with STOP. */
  public record Stream(String contentType, List<Tap> taps, boolean stopped) {}

  /** Decodes a whole file's bytes. */
  public static Stream read(byte[] file) throws IOException {
    DataInputStream in = new DataInputStream(new ByteArrayInputStream(file));
    if (in.readInt() != 0) {
      throw new IOException("a Frame Streams file starts with a control frame");
    }
    byte[] start = new byte[in.readInt()];
    in.readFully(start);
    DataInputStream c = new DataInputStream(new ByteArrayInputStream(start));
    if (c.readInt() != 2) {
      throw new IOException("the first control frame is not START");
    }
    String contentType = null;
    while (c.available() > 0) {
      int field = c.readInt();
      byte[] value = new byte[c.readInt()];
      c.readFully(value);
      if (field == 1) {
        contentType = new String(value, StandardCharsets.US_ASCII);
      }
    }
    List<Tap> taps = new ArrayList<>();
    boolean stopped = false;
    while (true) {
      int length;
      try {
        length = in.readInt();
      } catch (EOFException e) {
        break;
      }
      if (length == 0) {
        byte[] control = new byte[in.readInt()];
        in.readFully(control);
        stopped = control.length >= 4 && control[3] == 3;
        break;
      }
      byte[] payload = new byte[length];
      in.readFully(payload);
      taps.add(dnstap(payload));
    }
    return new Stream(contentType, taps, stopped);
  }

  private static Tap dnstap(byte[] b) throws IOException {
    Reader r = new Reader(b);
    String identity = null;
    String version = null;
    int type = 0;
    Tap m = null;
    while (r.more()) {
      long tag = r.varint();
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      switch (field) {
        case 1 -> identity = new String(r.bytes(), StandardCharsets.UTF_8);
        case 2 -> version = new String(r.bytes(), StandardCharsets.UTF_8);
        case 14 -> m = message(r.bytes());
        case 15 -> type = (int) r.varint();
        default -> r.skip(wire);
      }
    }
    if (m == null) {
      throw new IOException("a dnstap frame without a message");
    }
    return new Tap(
        identity,
        version,
        type,
        m.type(),
        m.family(),
        m.protocol(),
        m.queryAddress(),
        m.queryTimeSec(),
        m.queryTimeNsec(),
        m.queryMessage(),
        m.responseTimeSec(),
        m.responseMessage());
  }

  private static Tap message(byte[] b) throws IOException {
    Reader r = new Reader(b);
    int type = 0;
    int family = 0;
    int protocol = 0;
    byte[] address = null;
    long qsec = 0;
    int qnsec = 0;
    byte[] query = null;
    long rsec = 0;
    byte[] response = null;
    while (r.more()) {
      long tag = r.varint();
      int field = (int) (tag >>> 3);
      int wire = (int) (tag & 7);
      switch (field) {
        case 1 -> type = (int) r.varint();
        case 2 -> family = (int) r.varint();
        case 3 -> protocol = (int) r.varint();
        case 4 -> address = r.bytes();
        case 8 -> qsec = r.varint();
        case 9 -> qnsec = r.fixed32();
        case 10 -> query = r.bytes();
        case 12 -> rsec = r.varint();
        case 14 -> response = r.bytes();
        default -> r.skip(wire);
      }
    }
    return new Tap(
        null, null, 0, type, family, protocol, address, qsec, qnsec, query, rsec, response);
  }

  /** A protobuf wire-format reader over one message's bytes. */
  private static final class Reader {
    private final byte[] b;
    private int at;

    Reader(byte[] b) {
      this.b = b;
    }

    boolean more() {
      return at < b.length;
    }

    long varint() throws IOException {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= b.length) {
          throw new IOException("truncated varint");
        }
        int x = b[at++] & 0xff;
        v |= (long) (x & 0x7f) << shift;
        if ((x & 0x80) == 0) {
          return v;
        }
      }
      throw new IOException("varint too long");
    }

    byte[] bytes() throws IOException {
      int n = (int) varint();
      if (n < 0 || at + n > b.length) {
        throw new IOException("truncated length-delimited field");
      }
      byte[] out = java.util.Arrays.copyOfRange(b, at, at + n);
      at += n;
      return out;
    }

    int fixed32() {
      int v = (b[at] & 0xff) | (b[at + 1] & 0xff) << 8 | (b[at + 2] & 0xff) << 16 | b[at + 3] << 24;
      at += 4;
      return v;
    }

    void skip(int wire) throws IOException {
      switch (wire) {
        case 0 -> varint();
        case 1 -> at += 8;
        case 2 -> bytes();
        case 5 -> at += 4;
        default -> throw new IOException("unknown wire type " + wire);
      }
    }
  }
}
