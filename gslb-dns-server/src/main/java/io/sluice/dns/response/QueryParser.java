package io.sluice.dns.response;

import io.sluice.dns.zone.WireNames;
import org.xbill.DNS.DNSInput;
import org.xbill.DNS.Name;
import org.xbill.DNS.WireParseException;

/**
 * Decodes a query packet without building a dnsjava {@code Message}: the header, the one question
 * and the additional section's OPT record (RFC 6891) with its Client Subnet (RFC 7871), Cookie (RFC
 * 7873) and NSID (RFC 5001) options. Anything malformed behind a readable header is reported as
 * FORMERR; packets shorter than a header, and responses, are dropped (null).
 */
final class QueryParser {
  static final int OPT = 41;
  private static final int TSIG = 250;
  private static final int OPTION_ECS = 8;

  private QueryParser() {}

  /** Decodes {@code len} bytes of {@code b}, or returns null when the packet must be dropped. */
  static Query parse(byte[] b, int len) {
    if (len < 12 || (b[2] & 0x80) != 0) {
      return null;
    }
    Query q = new Query();
    q.id = u16(b, 0);
    q.flags = u16(b, 2);
    q.opcode = (b[2] >> 3) & 0x0f;
    q.qdcount = u16(b, 4);
    int ancount = u16(b, 6);
    int nscount = u16(b, 8);
    int arcount = u16(b, 10);
    if (q.qdcount != 1) {
      q.status = Query.FORMERR;
      return q;
    }
    int pos = Query.NAME_AT;
    int nameLen = 0;
    while (true) {
      if (pos >= len) {
        return formerr(q);
      }
      int l = b[pos] & 0xff;
      if (l == 0) {
        pos++;
        break;
      }
      // Compressed or extended labels have no place in a question; real clients never send them.
      if ((l & 0xc0) != 0) {
        return formerr(q);
      }
      nameLen += l + 1;
      pos += l + 1;
      if (nameLen > 254) {
        return formerr(q);
      }
    }
    if (pos + 4 > len) {
      return formerr(q);
    }
    q.nameEnd = pos;
    q.nameHash = WireNames.hash(b, Query.NAME_AT, pos - Query.NAME_AT);
    q.packet = b;
    q.qtype = u16(b, pos);
    q.qclass = u16(b, pos + 2);
    pos += 4;
    q.questionEnd = pos;
    for (int i = 0; i < ancount + nscount + arcount; i++) {
      int owner = pos;
      pos = skipName(b, pos, len);
      if (pos < 0 || pos + 10 > len) {
        return formerr(q);
      }
      int type = u16(b, pos);
      int rdlen = u16(b, pos + 8);
      int rdata = pos + 10;
      if (rdata + rdlen > len) {
        return formerr(q);
      }
      if (type == TSIG && i == ancount + nscount + arcount - 1) {
        // RFC 8945 §5.1: a TSIG record is the last of the message; the response is signed.
        q.tsig = true;
      }
      if (type == OPT) {
        boolean inAdditional = i >= ancount + nscount;
        if (q.edns || !inAdditional || pos != owner + 1 || b[owner] != 0) {
          return formerr(q);
        }
        q.edns = true;
        q.udpSize = u16(b, pos + 2);
        q.ednsVersion = b[pos + 5] & 0xff;
        q.dnssecOk = (b[pos + 6] & 0x80) != 0;
        if (!parseOptions(q, b, rdata, rdata + rdlen)) {
          return formerr(q);
        }
      }
      pos = rdata + rdlen;
    }
    if (pos != len) {
      return formerr(q);
    }
    return q;
  }

  private static boolean parseOptions(Query q, byte[] b, int pos, int end) {
    while (pos < end) {
      if (pos + 4 > end) {
        return false;
      }
      int code = u16(b, pos);
      int olen = u16(b, pos + 2);
      int data = pos + 4;
      if (data + olen > end) {
        return false;
      }
      if (code == OPTION_ECS && !parseEcs(q, b, data, olen)) {
        return false;
      }
      if (code == ServerCookies.OPTION) {
        // RFC 7873 §5.2.2: a client cookie is 8 bytes, a server cookie 8 to 32 more.
        if (olen != 8 && (olen < 16 || olen > 40)) {
          return false;
        }
        if (q.cookieAt == 0) {
          q.cookieAt = data;
          q.cookieLength = olen;
        }
      }
      if (code == EdnsOptions.NSID && olen == 0) {
        q.nsidRequested = true;
      }
      // Every other option, known or not, is ignored (RFC 6891 §6.1.2).
      pos = data + olen;
    }
    return true;
  }

  /** Validates an ECS option as RFC 7871 §6 and §7.1.1 require. */
  private static boolean parseEcs(Query q, byte[] b, int pos, int olen) {
    if (q.ecsFamily != 0 || olen < 4) {
      return false;
    }
    int family = u16(b, pos);
    int source = b[pos + 2] & 0xff;
    int scope = b[pos + 3] & 0xff;
    int size;
    if (family == 1) {
      size = 4;
    } else if (family == 2) {
      size = 16;
    } else {
      return false;
    }
    int addrLen = olen - 4;
    if (source > size * 8 || scope != 0 || addrLen != (source + 7) / 8) {
      return false;
    }
    byte[] addr = new byte[size];
    System.arraycopy(b, pos + 4, addr, 0, addrLen);
    int rest = source % 8;
    if (rest != 0 && (addr[addrLen - 1] & (0xff >>> rest)) != 0) {
      return false;
    }
    q.ecsFamily = family;
    q.ecsSource = source;
    q.ecsAddress = addr;
    return true;
  }

  /**
   * The question name of packet {@code b}, which {@link #parse} has accepted: uncompressed labels
   * of at most 63 bytes, 255 bytes in all, so decoding cannot fail.
   */
  static Name name(byte[] b) {
    try {
      DNSInput in = new DNSInput(b);
      in.jump(Query.NAME_AT);
      return new Name(in);
    } catch (WireParseException e) {
      throw new IllegalStateException("question name accepted by the parser is invalid", e);
    }
  }

  /** Skips a possibly compressed name; returns the offset after it, or -1 when malformed. */
  private static int skipName(byte[] b, int pos, int len) {
    int total = 0;
    while (pos < len) {
      int l = b[pos] & 0xff;
      if (l == 0) {
        return pos + 1;
      }
      if ((l & 0xc0) == 0xc0) {
        return pos + 2 <= len ? pos + 2 : -1;
      }
      if ((l & 0xc0) != 0) {
        return -1;
      }
      total += l + 1;
      if (total > 254) {
        return -1;
      }
      pos += l + 1;
    }
    return -1;
  }

  private static Query formerr(Query q) {
    q.status = Query.FORMERR;
    return q;
  }

  static int u16(byte[] b, int off) {
    return ((b[off] & 0xff) << 8) | (b[off + 1] & 0xff);
  }
}
