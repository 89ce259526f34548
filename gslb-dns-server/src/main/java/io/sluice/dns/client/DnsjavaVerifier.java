package io.sluice.dns.client;

import io.sluice.admin.cli.DnsVerifier;
import io.sluice.core.config.Cidr;
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

/** Queries a DNS server as a given client subnet (ECS), for {@code sluice ctl verify}. */
public final class DnsjavaVerifier implements DnsVerifier {

  @Override
  public DnsAnswer query(String server, int port, String name, String type, String clientSubnet)
      throws IOException {
    SimpleResolver resolver = new SimpleResolver(InetAddress.getByName(server));
    resolver.setPort(port);
    resolver.setTimeout(Duration.ofSeconds(3));
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
    Message response = resolver.send(query);
    List<String> records = new ArrayList<>();
    long ttl = -1;
    for (Record r : response.getSection(Section.ANSWER)) {
      if (r instanceof ARecord a) {
        records.add(a.getAddress().getHostAddress());
      } else if (r instanceof AAAARecord a) {
        records.add(a.getAddress().getHostAddress());
      } else if (r instanceof CNAMERecord c) {
        records.add(c.getTarget().toString());
      } else {
        records.add(r.rdataToString());
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
}
