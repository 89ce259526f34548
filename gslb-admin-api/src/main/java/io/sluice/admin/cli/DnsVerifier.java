package io.sluice.admin.cli;

import io.sluice.core.divergence.DnsAsker;
import io.sluice.core.divergence.NodeAnswer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks a DNS server for a name as a given client subnet (EDNS Client Subnet), the way {@code dig
 * +subnet=…} does. The DNS wire format belongs to the DNS server module, which implements this; the
 * CLI only compares the answers with the plan.
 */
public interface DnsVerifier extends DnsAsker {

  /**
   * Queries {@code server:port} for {@code name} (absolute) and {@code type} ({@code A} or {@code
   * AAAA}) with {@code clientSubnet} (CIDR, such as {@code 10.1.0.0/24}) in an ECS option.
   */
  DnsAnswer query(String server, int port, String name, String type, String clientSubnet)
      throws IOException;

  /**
   * For the divergence check. This default knows no record types beyond the question's: it takes
   * names for CNAME targets and everything else for the asked type, and has no timeout of its own;
   * the DNS server module's implementation reads the types off the wire.
   */
  @Override
  default NodeAnswer ask(
      String host, int port, String name, String type, String clientSubnet, Duration timeout)
      throws IOException {
    DnsAnswer a = query(host, port, name, type, clientSubnet);
    List<NodeAnswer.Rr> records = new ArrayList<>();
    for (String r : a.records()) {
      records.add(new NodeAnswer.Rr(r.endsWith(".") ? "CNAME" : type, r));
    }
    return NodeAnswer.answered(a.rcode(), records, a.ttl());
  }

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
