package io.sluice.dns.https;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.core.config.Addresses;
import io.sluice.core.divergence.ClientSubnets;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.Transport;
import java.io.IOException;
import java.net.InetAddress;
import java.util.List;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * The HTTPDNS answer of one {@code /resolve} request: the question is sent through the same {@link
 * Responder} as every DNS query, with the client's address as its EDNS Client Subnet, so the policy
 * chain picks for the app's own address (or the one a trusted caller names), and the response is
 * written as JSON in the shape of the widely used {@code /resolve} JSON APIs.
 */
final class HttpDns {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int PAYLOAD = 1232;

  private HttpDns() {}

  /** A request that cannot be answered: its HTTP status and the reason, for the JSON body. */
  static final class Refused extends Exception {
    private static final long serialVersionUID = 1L;
    final int status;

    Refused(int status, String message) {
      super(message, null, false, false);
      this.status = status;
    }
  }

  /** The parsed question of a request. */
  record Question(Name name, int type) {}

  /** Reads {@code name} and {@code type} (a mnemonic or a number; A when absent). */
  static Question question(String name, String type) throws Refused {
    if (name == null || name.isBlank()) {
      throw new Refused(400, "name is required");
    }
    Name n;
    try {
      n = Name.fromString(name, Name.root);
    } catch (TextParseException e) {
      throw new Refused(400, "name is not a domain name: " + e.getMessage());
    }
    int t = type == null || type.isEmpty() ? Type.A : Type.value(type, true);
    if (t < 0 || t == Type.OPT || t == Type.AXFR || t == Type.IXFR) {
      throw new Refused(400, "type must be a record type mnemonic or number, was '" + type + "'");
    }
    return new Question(n, t);
  }

  /**
   * The subnet named by {@code ip}: an address, or an address and prefix length ({@code
   * 192.0.2.0/24}); an address alone stands for itself (/32, /128).
   */
  static ClientSubnetOption subnet(String ip) throws Refused {
    String address = ip;
    Integer prefix = null;
    int slash = ip.indexOf('/');
    if (slash >= 0) {
      address = ip.substring(0, slash);
      try {
        prefix = Integer.parseInt(ip.substring(slash + 1));
      } catch (NumberFormatException e) {
        throw new Refused(400, "ip prefix length is not a number: '" + ip + "'");
      }
    }
    if (!Addresses.isLiteral(address)) {
      throw new Refused(400, "ip must be an IPv4 or IPv6 address, was '" + ip + "'");
    }
    InetAddress a = Addresses.of(address);
    int max = a.getAddress().length * 8;
    if (prefix != null && (prefix < 0 || prefix > max)) {
      throw new Refused(400, "ip prefix length must be 0.." + max + ", was " + prefix);
    }
    return new ClientSubnetOption(prefix == null ? max : prefix, a);
  }

  /** The subnet of the connection's own address. */
  static ClientSubnetOption subnet(InetAddress client) {
    return new ClientSubnetOption(client.getAddress().length * 8, client);
  }

  /** The wire query for {@code q} on behalf of {@code subnet}. */
  static byte[] query(Question q, ClientSubnetOption subnet) {
    Message m = Message.newQuery(Record.newRecord(q.name(), q.type(), DClass.IN));
    m.getHeader().setID(0);
    m.getHeader().unsetFlag(Flags.RD);
    m.addRecord(new OPTRecord(PAYLOAD, 0, 0, 0, List.of(subnet)), Section.ADDITIONAL);
    return m.toWire();
  }

  /** A JSON answer and how long it may be cached (the smallest TTL, as for DoH). */
  record Answer(byte[] json, long maxAge) {}

  /** Answers {@code query} for {@code client} and writes the response as JSON. */
  static Answer resolve(Responder responder, byte[] query, InetAddress client, Question q)
      throws IOException {
    byte[] out = responder.respond(query, query.length, client, Transport.TCP);
    if (out == null) {
      throw new IOException("the responder dropped a well-formed query");
    }
    return new Answer(json(new Message(out), q), DnsWire.minTtl(out));
  }

  static byte[] json(Message r, Question q) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("Status", r.getRcode());
    root.put("TC", r.getHeader().getFlag(Flags.TC));
    root.put("RD", r.getHeader().getFlag(Flags.RD));
    root.put("RA", r.getHeader().getFlag(Flags.RA));
    root.put("AD", r.getHeader().getFlag(Flags.AD));
    root.put("CD", r.getHeader().getFlag(Flags.CD));
    root.putArray("Question").addObject().put("name", q.name().toString()).put("type", q.type());
    section(root, "Answer", r.getSection(Section.ANSWER));
    section(root, "Authority", r.getSection(Section.AUTHORITY));
    OPTRecord opt = r.getOPT();
    if (opt != null) {
      for (EDNSOption o : opt.getOptions(EDNSOption.Code.CLIENT_SUBNET)) {
        ClientSubnetOption ecs = (ClientSubnetOption) o;
        root.put(
            "edns_client_subnet",
            ClientSubnets.format(ecs.getAddress().getAddress(), ecs.getSourcePrefixLength()));
        root.put("scope_prefix_length", ecs.getScopePrefixLength());
      }
    }
    return JSON.writeValueAsBytes(root);
  }

  private static void section(ObjectNode root, String key, List<Record> records) {
    if (records.isEmpty()) {
      return;
    }
    ArrayNode a = root.putArray(key);
    for (Record rr : records) {
      a.addObject()
          .put("name", rr.getName().toString())
          .put("type", rr.getType())
          .put("TTL", rr.getTTL())
          .put("data", rr.rdataToString());
    }
  }

  /** The JSON body of an error. */
  static byte[] error(String message) {
    try {
      return JSON.writeValueAsBytes(JSON.createObjectNode().put("error", message));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
