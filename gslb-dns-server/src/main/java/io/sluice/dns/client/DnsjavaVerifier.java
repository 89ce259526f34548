package io.sluice.dns.client;

import io.sluice.admin.cli.DnsVerifier;
import io.sluice.core.config.Cidr;
import io.sluice.core.divergence.NodeAnswer;
import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Queries a DNS server as a given client subnet (ECS), for {@code sluice ctl verify} and the
 * divergence check.
 */
public final class DnsjavaVerifier implements DnsVerifier {
  private static final Duration TIMEOUT = Duration.ofSeconds(3);

  @Override
  public DnsAnswer query(String server, int port, String name, String type, String clientSubnet)
      throws IOException {
    Message response = send(server, port, name, type, clientSubnet, TIMEOUT);
    List<String> records = new ArrayList<>();
    long ttl = -1;
    for (Record r : response.getSection(Section.ANSWER)) {
      if (r instanceof CNAMERecord c) {
        records.add(c.getTarget().toString());
      } else {
        records.add(data(r));
      }
      ttl = ttl < 0 ? r.getTTL() : Math.min(ttl, r.getTTL());
    }
    int scope = -1;
    OPTRecord opt = response.getOPT();
    if (opt != null) {
      for (EDNSOption o : opt.getOptions(EDNSOption.Code.CLIENT_SUBNET)) {
        scope = ((ClientSubnetOption) o).getScopePrefixLength();
      }
    }
    return new DnsAnswer(Rcode.string(response.getRcode()), records, Math.max(ttl, 0), scope);
  }

  /** Every answer record with its type, for comparing answers between nodes. */
  @Override
  public NodeAnswer ask(
      String host, int port, String name, String type, String clientSubnet, Duration timeout)
      throws IOException {
    Message response = send(host, port, name, type, clientSubnet, timeout);
    List<NodeAnswer.Rr> records = new ArrayList<>();
    long ttl = -1;
    for (Record r : response.getSection(Section.ANSWER)) {
      records.add(new NodeAnswer.Rr(Type.string(r.getType()), data(r)));
      ttl = ttl < 0 ? r.getTTL() : Math.min(ttl, r.getTTL());
    }
    return NodeAnswer.answered(Rcode.string(response.getRcode()), records, ttl);
  }

  /** Addresses in Java's one spelling, everything else in presentation form. */
  private static String data(Record r) {
    if (r instanceof ARecord a) {
      return a.getAddress().getHostAddress();
    }
    if (r instanceof AAAARecord a) {
      return a.getAddress().getHostAddress();
    }
    return r.rdataToString();
  }

  private static Message send(
      String server, int port, String name, String type, String clientSubnet, Duration timeout)
      throws IOException {
    SimpleResolver resolver = new SimpleResolver(InetAddress.getByName(server));
    resolver.setPort(port);
    resolver.setTimeout(timeout);
    Cidr subnet = Cidr.parse(clientSubnet);
    ClientSubnetOption ecs =
        new ClientSubnetOption(subnet.prefix(), InetAddress.getByAddress(subnet.address()));
    resolver.setEDNS(0, 1232, 0, List.of(ecs));
    int qtype = Type.value(type);
    if (qtype < 0) {
      throw new IOException("unknown record type '" + type + "'");
    }
    Message query =
        Message.newQuery(Record.newRecord(Name.fromString(name, Name.root), qtype, DClass.IN));
    return resolver.send(query);
  }
}
