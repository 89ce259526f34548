package io.sluice.dns.response;

import java.nio.charset.StandardCharsets;

/**
 * EDNS options a response may carry besides Client Subnet: NSID (RFC 5001) and Extended DNS Errors
 * (RFC 8914), encoded whole (code, length, data) so the splicer appends them with one copy.
 */
final class EdnsOptions {
  static final int NSID = 3;
  static final int EDE = 15;

  /** EDE 18: a query type or class this server refuses by policy (transfers, class ANY). */
  static final byte[] EDE_PROHIBITED = ede(18, null);

  /** EDE 20: the name is in no zone this server serves. */
  static final byte[] EDE_NOT_AUTHORITATIVE = ede(20, null);

  /** EDE 0 with text: the GSLB planner threw; the log has the stack trace. */
  static final byte[] EDE_PLANNER_FAILED = ede(0, "GSLB planner error");

  private EdnsOptions() {}

  /** One option: its code, its length and {@code data}. */
  static byte[] option(int code, byte[] data) {
    byte[] out = new byte[4 + data.length];
    out[0] = (byte) (code >>> 8);
    out[1] = (byte) code;
    out[2] = (byte) (data.length >>> 8);
    out[3] = (byte) data.length;
    System.arraycopy(data, 0, out, 4, data.length);
    return out;
  }

  /** An Extended DNS Error option (RFC 8914 §2): INFO-CODE then optional UTF-8 EXTRA-TEXT. */
  static byte[] ede(int infoCode, String extraText) {
    byte[] text = extraText == null ? new byte[0] : extraText.getBytes(StandardCharsets.UTF_8);
    byte[] data = new byte[2 + text.length];
    data[0] = (byte) (infoCode >>> 8);
    data[1] = (byte) infoCode;
    System.arraycopy(text, 0, data, 2, text.length);
    return option(EDE, data);
  }
}
