package io.sluice.dns.client;

import io.sluice.admin.cli.DnsVerifier;
import io.sluice.core.config.Cidr;
import io.sluice.core.divergence.NodeAnswer;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
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
  private static final int EDNS_SIZE = 1232;

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
    Message response = sendUdp(host, port, name, type, clientSubnet, timeout);
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
    resolver.setEDNS(0, EDNS_SIZE, 0, List.of(ecs(clientSubnet)));
    return resolver.send(question(name, type));
  }

  /**
   * One query over a plain blocking UDP socket of its own, falling back to {@link #send} (which
   * retries over TCP) when the answer is truncated. The divergence check sends tens of thousands of
   * these from a few threads; this skips the resolver's shared selector thread, which serialised
   * them.
   */
  private static Message sendUdp(
      String server, int port, String name, String type, String clientSubnet, Duration timeout)
      throws IOException {
    Message query = question(name, type);
    query.addRecord(
        new OPTRecord(EDNS_SIZE, 0, 0, 0, List.of(ecs(clientSubnet))), Section.ADDITIONAL);
    byte[] wire = query.toWire();
    InetSocketAddress to = new InetSocketAddress(InetAddress.getByName(server), port);
    long deadline = System.nanoTime() + timeout.toNanos();
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.send(new DatagramPacket(wire, wire.length, to));
      byte[] buf = new byte[65535];
      while (true) {
        long left = (deadline - System.nanoTime()) / 1_000_000;
        if (left <= 0) {
          throw new SocketTimeoutException(
              "no answer from " + server + ":" + port + " in " + timeout.toMillis() + " ms");
        }
        socket.setSoTimeout((int) Math.max(1, left));
        DatagramPacket in = new DatagramPacket(buf, buf.length);
        socket.receive(in);
        // Only the asked server's answer to this very query counts; anything else is ignored.
        if (!to.equals(in.getSocketAddress()) || in.getLength() < 12) {
          continue;
        }
        Message response = new Message(java.util.Arrays.copyOf(buf, in.getLength()));
        if (response.getHeader().getID() != query.getHeader().getID()) {
          continue;
        }
        if (response.getHeader().getFlag(Flags.TC)) {
          return send(server, port, name, type, clientSubnet, timeout);
        }
        return response;
      }
    }
  }

  private static ClientSubnetOption ecs(String clientSubnet) throws IOException {
    Cidr subnet = Cidr.parse(clientSubnet);
    return new ClientSubnetOption(subnet.prefix(), InetAddress.getByAddress(subnet.address()));
  }

  private static Message question(String name, String type) throws IOException {
    int qtype = Type.value(type);
    if (qtype < 0) {
      throw new IOException("unknown record type '" + type + "'");
    }
    return Message.newQuery(Record.newRecord(Name.fromString(name, Name.root), qtype, DClass.IN));
  }
}
