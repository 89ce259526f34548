package io.sluice.admin.cli;

import java.io.IOException;
import java.util.List;

/**
 * Asks a DNS server for a name as a given client subnet (EDNS Client Subnet), the way {@code dig
 * +subnet=…} does. The DNS wire format belongs to the DNS server module, which implements this; the
 * CLI only compares the answers with the plan.
 */
public interface DnsVerifier {

  /**
   * Queries {@code server:port} for {@code name} (absolute) and {@code type} ({@code A} or {@code
   * AAAA}) with {@code clientSubnet} (CIDR, such as {@code 10.1.0.0/24}) in an ECS option.
   */
  DnsAnswer query(String server, int port, String name, String type, String clientSubnet)
      throws IOException;

  /**
   * The answer: rcode name ({@code NOERROR}), the answer records' data (addresses, or a CNAME
   * target), their TTL, and the ECS scope prefix the server returned (-1 when none).
   */
  record DnsAnswer(String rcode, List<String> records, long ttl, int scopePrefix) {
    public DnsAnswer {
      records = List.copyOf(records);
    }
  }
}
