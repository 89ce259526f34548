package io.sluice.dns.tap;

import java.io.ByteArrayOutputStream;

/**
 * Encodes dnstap messages ({@code dnstap.Dnstap} of dnstap.proto, protocol buffers wire format) by
 * hand: the schema is small and fixed, so no protobuf library is needed. Only the fields an
 * authoritative server fills are written.
 */
final class DnstapEncoder {
  /** {@code Message.Type}: a query an authoritative server received. */
  static final int AUTH_QUERY = 1;

  /** {@code Message.Type}: the response an authoritative server sent. */
  static final int AUTH_RESPONSE = 2;

  /** {@code SocketFamily}. */
  static final int INET = 1;

  static final int INET6 = 2;

  /** {@code SocketProtocol}. */
  static final int UDP = 1;

  static final int TCP = 2;

  // Dnstap fields
  private static final int IDENTITY = 1;
  private static final int VERSION = 2;
  private static final int MESSAGE = 14;
  private static final int TYPE = 15;
  // Message fields
  private static final int M_TYPE = 1;
  private static final int M_FAMILY = 2;
  private static final int M_PROTOCOL = 3;
  private static final int M_QUERY_ADDRESS = 4;
  private static final int M_QUERY_PORT = 6;
  private static final int M_QUERY_TIME_SEC = 8;
  private static final int M_QUERY_TIME_NSEC = 9;
  private static final int M_QUERY_MESSAGE = 10;
  private static final int M_RESPONSE_TIME_SEC = 12;
  private static final int M_RESPONSE_TIME_NSEC = 13;
  private static final int M_RESPONSE_MESSAGE = 14;

  private final byte[] identity;
  private final byte[] version;
  private final ByteArrayOutputStream message = new ByteArrayOutputStream(512);
  private final ByteArrayOutputStream frame = new ByteArrayOutputStream(512);

  DnstapEncoder(byte[] identity, byte[] version) {
    this.identity = identity;
    this.version = version;
  }

  /**
   * One {@code Dnstap} of type MESSAGE: an AUTH_QUERY carrying {@code query}, or an AUTH_RESPONSE
   * carrying {@code response} (and the query time).
   */
  byte[] encode(
      int type,
      byte[] clientAddress,
      int clientPort,
      boolean tcp,
      long queryMillis,
      byte[] query,
      long responseMillis,
      byte[] response) {
    message.reset();
    varintField(message, M_TYPE, type);
    varintField(message, M_FAMILY, clientAddress.length == 4 ? INET : INET6);
    varintField(message, M_PROTOCOL, tcp ? TCP : UDP);
    bytesField(message, M_QUERY_ADDRESS, clientAddress);
    if (clientPort > 0) {
      varintField(message, M_QUERY_PORT, clientPort);
    }
    varintField(message, M_QUERY_TIME_SEC, Math.floorDiv(queryMillis, 1000));
    fixed32Field(message, M_QUERY_TIME_NSEC, Math.floorMod(queryMillis, 1000) * 1_000_000);
    if (type == AUTH_QUERY) {
      bytesField(message, M_QUERY_MESSAGE, query);
    } else {
      varintField(message, M_RESPONSE_TIME_SEC, Math.floorDiv(responseMillis, 1000));
      fixed32Field(message, M_RESPONSE_TIME_NSEC, Math.floorMod(responseMillis, 1000) * 1_000_000);
      bytesField(message, M_RESPONSE_MESSAGE, response);
    }
    frame.reset();
    if (identity != null) {
      bytesField(frame, IDENTITY, identity);
    }
    if (version != null) {
      bytesField(frame, VERSION, version);
    }
    tag(frame, MESSAGE, 2);
    varint(frame, message.size());
    frame.writeBytes(message.toByteArray());
    varintField(frame, TYPE, 1);
    return frame.toByteArray();
  }

  private static void tag(ByteArrayOutputStream out, int field, int wireType) {
    varint(out, (long) field << 3 | wireType);
  }

  private static void varintField(ByteArrayOutputStream out, int field, long value) {
    tag(out, field, 0);
    varint(out, value);
  }

  private static void bytesField(ByteArrayOutputStream out, int field, byte[] value) {
    tag(out, field, 2);
    varint(out, value.length);
    out.write(value, 0, value.length);
  }

  private static void fixed32Field(ByteArrayOutputStream out, int field, int value) {
    tag(out, field, 5);
    out.write(value);
    out.write(value >>> 8);
    out.write(value >>> 16);
    out.write(value >>> 24);
  }

  private static void varint(ByteArrayOutputStream out, long value) {
    while ((value & ~0x7fL) != 0) {
      out.write((int) (value & 0x7f) | 0x80);
      value >>>= 7;
    }
    out.write((int) value);
  }
}
