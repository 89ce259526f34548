package io.sluice.dns.response;

import io.sluice.dns.zone.WireNames;
import io.sluice.dns.zone.Zone;
import org.xbill.DNS.Name;

/**
 * One decoded query: the header fields the response copies, the question (with where its name sits
 * in the packet, so its letter case can be echoed byte for byte) and the EDNS(0) state. Made once
 * per packet by {@link QueryParser}; never shared between threads.
 */
final class Query {
  static final int OK = 0;
  static final int FORMERR = 1;

  /** Where the question name starts in the packet, right after the header. */
  static final int NAME_AT = 12;

  int status = OK;
  int id;
  int flags;
  int opcode;
  int qdcount;

  /** Offset just past the question section; 0 when the question could not be read. */
  int questionEnd;

  /** Offset just past the question name (its root label included). */
  int nameEnd;

  /** {@link WireNames#hash} of the question name as sent, for look-ups without a {@link Name}. */
  int nameHash;

  /** The packet the query was read from; the question name is decoded from it when asked for. */
  byte[] packet;

  private Name qname;
  int qtype;
  int qclass;

  boolean edns;
  int udpSize;
  int ednsVersion;
  boolean dnssecOk;

  /** The ECS family (1 or 2) or 0 when the query carried no Client Subnet option. */
  int ecsFamily;

  int ecsSource;

  /** The ECS address padded to 4 or 16 bytes, host bits cleared. */
  byte[] ecsAddress;

  /** The query ends with a TSIG record (RFC 8945): its answer is signed or NOTAUTH. */
  boolean tsig;

  /** The query carried an empty NSID option (RFC 5001 §2.1): it asks for the server's NSID. */
  boolean nsidRequested;

  /** The encoded NSID option the response carries; null when none (not asked or not set). */
  byte[] nsid;

  /**
   * Where the first COOKIE option's data (RFC 7873) starts in the packet, and its length; 0 when
   * the query carried none. Its length is already known to be 8 or 16 to 40.
   */
  int cookieAt;

  int cookieLength;

  /** The query presented a server cookie this server made (RFC 9018): it bypasses rate limits. */
  boolean cookieValid;

  /** The query needed a valid server cookie and had none: the response is BADCOOKIE. */
  boolean badCookie;

  /** The encoded COOKIE option the response carries; null when none. */
  byte[] cookie;

  /** The encoded Extended DNS Error option (RFC 8914) the response carries; null when none. */
  byte[] ede;

  /**
   * The answer was not one of the zone's own names (a wildcard, DNAME or referral answer): rate
   * limiting counts such answers per zone, so random names cannot each get a budget.
   */
  boolean synthesized;

  /** The zone that answered, for metrics; null when none did. */
  Zone zone;

  boolean hasQuestion() {
    return questionEnd > 0;
  }

  /**
   * The question name, decoded on first use: a static answer is found by the bytes alone, so most
   * queries never build one. Only called for a query with a question (the parser has checked its
   * labels, so decoding cannot fail).
   */
  Name qname() {
    Name n = qname;
    if (n == null) {
      n = QueryParser.name(packet);
      qname = n;
    }
    return n;
  }
}
