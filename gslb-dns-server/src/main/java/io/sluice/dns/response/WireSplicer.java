package io.sluice.dns.response;

/**
 * Builds the bytes of one response from a template and the query: the query's ID, RD and CD bits,
 * its question name spelled as sent (0x20) and its question type, then an OPT record when the query
 * had one. When the result would exceed the client's UDP size it sends the header and question with
 * TC=1 instead, so no RRset is ever cut in half; the responder hands it shorter responses, cut at
 * RRset boundaries, when it knows where those are.
 */
final class WireSplicer {
  /** OPT record without options: root name, type, class, TTL, RDLENGTH. */
  static final int OPT_FIXED = 11;

  private static final int ECS_FIXED = 8;

  private WireSplicer() {}

  /** The OPT record length this query's response needs; 0 without EDNS. */
  static int optLength(Query q) {
    if (!q.edns) {
      return 0;
    }
    return OPT_FIXED + optionsLength(q);
  }

  /** The OPT RDATA length: ECS echoed, then the COOKIE, NSID and EDE options when set. */
  private static int optionsLength(Query q) {
    int n = q.ecsFamily == 0 ? 0 : ECS_FIXED + (q.ecsSource + 7) / 8;
    if (q.cookie != null) {
      n += q.cookie.length;
    }
    if (q.nsid != null) {
      n += q.nsid.length;
    }
    if (q.ede != null) {
      n += q.ede.length;
    }
    return n;
  }

  /**
   * Splices {@code template} for query {@code q} read from {@code in}; {@code limit} is the largest
   * response the transport allows, {@code scope} the ECS scope prefix to echo.
   */
  static byte[] splice(
      byte[] template, Query q, byte[] in, int limit, int payload, int extRcode, int scope) {
    return splice(
        template, q, in, template.length + optLength(q) > limit, payload, extRcode, scope);
  }

  /** The header and question of {@code template} with TC=1 (and OPT when the query had one). */
  static byte[] truncated(byte[] template, Query q, byte[] in, int payload) {
    return splice(template, q, in, true, payload, 0, 0);
  }

  /** {@code partial}, a response already cut to what fits, spliced for {@code q} with TC=1. */
  static byte[] withTc(byte[] partial, Query q, byte[] in, int payload, int scope) {
    byte[] out = splice(partial, q, in, false, payload, 0, scope);
    out[2] |= 0x02;
    return out;
  }

  private static byte[] splice(
      byte[] template, Query q, byte[] in, boolean truncate, int payload, int extRcode, int scope) {
    int opt = optLength(q);
    int body = truncate ? q.questionEnd : template.length;
    byte[] out = new byte[body + opt];
    System.arraycopy(template, 0, out, 0, body);
    out[0] = in[0];
    out[1] = in[1];
    // RD (RFC 1035) and CD (RFC 6840 §5.9) are copied from the query; everything else from the
    // template.
    out[2] = (byte) ((template[2] & ~0x01) | (in[2] & 0x01));
    out[3] = (byte) ((template[3] & ~0x10) | (in[3] & 0x10));
    System.arraycopy(in, 12, out, 12, q.nameEnd - 12);
    out[q.nameEnd] = in[q.nameEnd];
    out[q.nameEnd + 1] = in[q.nameEnd + 1];
    if (truncate) {
      out[2] |= 0x02;
      out[6] = out[7] = out[8] = out[9] = out[10] = out[11] = 0;
    }
    if (opt > 0) {
      int ar = ((out[10] & 0xff) << 8 | (out[11] & 0xff)) + 1;
      out[10] = (byte) (ar >>> 8);
      out[11] = (byte) ar;
      writeOpt(out, body, q, payload, extRcode, scope);
    }
    return out;
  }

  /**
   * A response without records: the header, the question when the query had a readable one, and an
   * OPT record when the query had one and {@code withOpt} is set.
   */
  static byte[] bare(Query q, byte[] in, int rcode, boolean withOpt, int payload, int extRcode) {
    int question = q.hasQuestion() ? q.questionEnd - 12 : 0;
    int opt = withOpt ? optLength(q) : 0;
    byte[] out = new byte[12 + question + opt];
    out[0] = in[0];
    out[1] = in[1];
    out[2] = (byte) (0x80 | (in[2] & 0x79));
    out[3] = (byte) ((in[3] & 0x10) | (rcode & 0x0f));
    if (question > 0) {
      out[5] = 1;
      System.arraycopy(in, 12, out, 12, question);
    }
    if (opt > 0) {
      out[11] = 1;
      writeOpt(out, 12 + question, q, payload, extRcode, 0);
    }
    return out;
  }

  /**
   * The response rate limiting sends instead of a limited one (its "slip"): header and question
   * with TC=1 and the same {@code rcode}, no records, and the OPT record (with the server cookie,
   * so the client can come back with it) when the query had a readable one.
   */
  static byte[] slipped(Query q, byte[] in, int rcode, int payload) {
    byte[] out = bare(q, in, rcode & 0x0f, q.edns && q.status == Query.OK, payload, rcode >>> 4);
    out[2] |= 0x02;
    return out;
  }

  private static void writeOpt(byte[] out, int at, Query q, int payload, int extRcode, int scope) {
    out[at] = 0;
    out[at + 1] = 0;
    out[at + 2] = QueryParser.OPT;
    out[at + 3] = (byte) (payload >>> 8);
    out[at + 4] = (byte) payload;
    out[at + 5] = (byte) extRcode;
    out[at + 6] = 0;
    out[at + 7] = (byte) (q.dnssecOk ? 0x80 : 0);
    out[at + 8] = 0;
    int rdlen = optionsLength(q);
    out[at + 9] = (byte) (rdlen >>> 8);
    out[at + 10] = (byte) rdlen;
    int o = at + 11;
    if (q.ecsFamily != 0) {
      int addrLen = (q.ecsSource + 7) / 8;
      out[o] = 0;
      out[o + 1] = 8;
      out[o + 2] = (byte) ((4 + addrLen) >>> 8);
      out[o + 3] = (byte) (4 + addrLen);
      out[o + 4] = 0;
      out[o + 5] = (byte) q.ecsFamily;
      out[o + 6] = (byte) q.ecsSource;
      out[o + 7] = (byte) scope;
      System.arraycopy(q.ecsAddress, 0, out, o + 8, addrLen);
      o += ECS_FIXED + addrLen;
    }
    if (q.cookie != null) {
      System.arraycopy(q.cookie, 0, out, o, q.cookie.length);
      o += q.cookie.length;
    }
    if (q.nsid != null) {
      System.arraycopy(q.nsid, 0, out, o, q.nsid.length);
      o += q.nsid.length;
    }
    if (q.ede != null) {
      System.arraycopy(q.ede, 0, out, o, q.ede.length);
    }
  }
}
