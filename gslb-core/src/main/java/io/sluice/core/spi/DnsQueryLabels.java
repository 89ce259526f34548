package io.sluice.core.spi;

import java.util.Arrays;
import java.util.List;

/**
 * The bounded label values of the DNS query metrics. A client chooses its query type and, through
 * malformed or unusual queries, much of what reaches the metrics; so every value is mapped onto a
 * small fixed set here: query types the server knows by name (the rest are {@code other}) and the
 * sixteen header rcodes plus {@code BADVERS}, {@code BADCOOKIE} and {@code DROPPED}. Metrics
 * backends index tables of meters by these small integers instead of looking labels up per query.
 */
public final class DnsQueryLabels {
  /** The query type reported for a query without a question. */
  public static final int NO_QUESTION = -1;

  /** The rcode reported for a query that was dropped unanswered. */
  public static final int DROPPED = -1;

  /** The query-type label of every type not in {@link #QTYPES}. */
  public static final String OTHER = "other";

  private static final int BADVERS = 16;
  private static final int BADCOOKIE = 23;

  /** Types known by name (the mnemonics of RFC 1035 and later, as dig prints them), by number. */
  private static final Object[][] KNOWN_TYPES = {
    {1, "A"},
    {2, "NS"},
    {5, "CNAME"},
    {6, "SOA"},
    {10, "NULL"},
    {11, "WKS"},
    {12, "PTR"},
    {13, "HINFO"},
    {14, "MINFO"},
    {15, "MX"},
    {16, "TXT"},
    {17, "RP"},
    {18, "AFSDB"},
    {24, "SIG"},
    {25, "KEY"},
    {28, "AAAA"},
    {29, "LOC"},
    {33, "SRV"},
    {35, "NAPTR"},
    {36, "KX"},
    {37, "CERT"},
    {39, "DNAME"},
    {41, "OPT"},
    {42, "APL"},
    {43, "DS"},
    {44, "SSHFP"},
    {45, "IPSECKEY"},
    {46, "RRSIG"},
    {47, "NSEC"},
    {48, "DNSKEY"},
    {49, "DHCID"},
    {50, "NSEC3"},
    {51, "NSEC3PARAM"},
    {52, "TLSA"},
    {53, "SMIMEA"},
    {55, "HIP"},
    {59, "CDS"},
    {60, "CDNSKEY"},
    {61, "OPENPGPKEY"},
    {62, "CSYNC"},
    {63, "ZONEMD"},
    {64, "SVCB"},
    {65, "HTTPS"},
    {99, "SPF"},
    {108, "EUI48"},
    {109, "EUI64"},
    {249, "TKEY"},
    {250, "TSIG"},
    {251, "IXFR"},
    {252, "AXFR"},
    {253, "MAILB"},
    {254, "MAILA"},
    {255, "ANY"},
    {256, "URI"},
    {257, "CAA"}
  };

  /** Every query-type label: {@code ""} (no question), the known types, {@code other}. */
  public static final List<String> QTYPES;

  /**
   * Every rcode label: the sixteen header rcodes, {@code BADVERS}, {@code BADCOOKIE}, {@code
   * DROPPED}.
   */
  public static final List<String> RCODES =
      List.of(
          "NOERROR",
          "FORMERR",
          "SERVFAIL",
          "NXDOMAIN",
          "NOTIMP",
          "REFUSED",
          "YXDOMAIN",
          "YXRRSET",
          "NXRRSET",
          "NOTAUTH",
          "NOTZONE",
          "RESERVED11",
          "RESERVED12",
          "RESERVED13",
          "RESERVED14",
          "RESERVED15",
          "BADVERS",
          "BADCOOKIE",
          "DROPPED");

  private static final byte[] QTYPE_INDEX = new byte[258];

  static {
    String[] names = new String[KNOWN_TYPES.length + 2];
    names[0] = "";
    Arrays.fill(QTYPE_INDEX, (byte) (names.length - 1));
    for (int i = 0; i < KNOWN_TYPES.length; i++) {
      QTYPE_INDEX[(Integer) KNOWN_TYPES[i][0]] = (byte) (i + 1);
      names[i + 1] = (String) KNOWN_TYPES[i][1];
    }
    names[names.length - 1] = OTHER;
    QTYPES = List.of(names);
  }

  private DnsQueryLabels() {}

  /** The index in {@link #QTYPES} of query type {@code qtype} (or {@link #NO_QUESTION}). */
  public static int qtypeIndex(int qtype) {
    if (qtype == NO_QUESTION) {
      return 0;
    }
    return qtype >= 0 && qtype < QTYPE_INDEX.length ? QTYPE_INDEX[qtype] : QTYPES.size() - 1;
  }

  /** The index in {@link #RCODES} of {@code rcode}: 0..16, BADCOOKIE (23), or {@link #DROPPED}. */
  public static int rcodeIndex(int rcode) {
    if (rcode == BADCOOKIE) {
      return BADVERS + 1;
    }
    return rcode >= 0 && rcode <= BADVERS ? rcode : RCODES.size() - 1;
  }
}
