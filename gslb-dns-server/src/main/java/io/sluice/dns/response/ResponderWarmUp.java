package io.sluice.dns.response;

import io.sluice.core.config.Addresses;
import io.sluice.core.config.Cidr;
import io.sluice.core.config.NetworkMapEntry;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.state.Snapshot;
import io.sluice.dns.zone.Zone;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.ExtendedFlags;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.NameTooLongException;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.TextParseException;
import org.xbill.DNS.Type;

/**
 * Answers synthetic queries of every kind the query path branches on (with and without EDNS, ECS
 * from many subnets of both families, DO, cookies, NSID; services, static names, negative answers,
 * CHAOS, malformed and refused queries) through a responder of the same classes as the one that
 * will serve, before any listener reads. The JIT then compiles the path from a profile that has
 * seen every branch, so the first real queries are not answered by the interpreter, and a kind of
 * query first seen under load (the first ECS query after hours without) does not make the compiled
 * code be thrown away and compiled again on the serving threads' cores.
 *
 * <p>The caller builds that responder over a store of its own, a detached planner and detached
 * metrics, so nothing a real query changes (metrics, rate limit buckets, decision samples, dnstap)
 * sees the synthetic ones; the zone data is shared, so a negative answer encoded here may stay in
 * its cache.
 */
public final class ResponderWarmUp {
  /** Zones and services asked by name: enough for every branch, bounded for huge configurations. */
  private static final int MAX_ZONES = 8;

  private static final int MAX_SERVICES = 48;
  private static final int STATIC_RRSETS_PER_ZONE = 8;
  private static final int NEGATIVE_NAMES_PER_ZONE = 48;
  private static final int EDNS_SIZE = 1232;
  private static final int MAX_NETWORK_SAMPLES = 32;

  /** What a warm-up did: queries answered, and the time it took. */
  public record Result(int queries, int distinct, long nanos) {}

  private final Responder responder;
  private final List<byte[]> packets;
  private final InetAddress[] clients;

  private ResponderWarmUp(Responder responder, List<byte[]> packets, InetAddress[] clients) {
    this.responder = responder;
    this.packets = packets;
    this.clients = clients;
  }

  /**
   * The synthetic queries for the zones and services of {@code snapshot}, built once, to answer
   * through {@code responder} with {@link #run(int, long)} as often as the caller needs.
   */
  public static ResponderWarmUp of(Responder responder, Snapshot snapshot) {
    List<InetAddress> samples = samples(snapshot, new Random(1035));
    return new ResponderWarmUp(responder, queries(responder, snapshot, samples), clients(samples));
  }

  /**
   * Answers up to {@code queries} of the synthetic queries, stopping early after {@code
   * budgetNanos}.
   */
  public Result run(int queries, long budgetNanos) {
    long start = System.nanoTime();
    int n = packets.size();
    if (n == 0 || queries <= 0) {
      return new Result(0, n, System.nanoTime() - start);
    }
    byte[] buf = new byte[EDNS_SIZE];
    QueryClock clock = new QueryClock();
    clock.start();
    int done = 0;
    while (done < queries) {
      byte[] p = packets.get(done % n);
      System.arraycopy(p, 0, buf, 0, p.length);
      buf[0] = (byte) (done >>> 8);
      buf[1] = (byte) done;
      // Clients rotate against the packets, so each question comes from many addresses.
      InetAddress client = clients[(done + done / n) % clients.length];
      // Over TCP as the TCP and DoH paths ask (no batch clock), over UDP as the batch loop does.
      if (done % 16 == 0) {
        responder.respond(buf, p.length, client, Transport.TCP, null);
        clock.start();
      } else {
        responder.respond(buf, p.length, client, Transport.UDP, clock);
      }
      done++;
      if ((done & 1023) == 0 && System.nanoTime() - start > budgetNanos) {
        break;
      }
    }
    return new Result(done, n, System.nanoTime() - start);
  }

  /** The services the warm-up of {@code snapshot} asks about: the first {@value #MAX_SERVICES}. */
  public static Set<String> services(Snapshot snapshot) {
    Set<String> out = new LinkedHashSet<>();
    for (ZoneConfig z : snapshot.config().zones()) {
      for (ServiceConfig s : z.services()) {
        if (out.size() == MAX_SERVICES) {
          return out;
        }
        out.add(s.fqdn(z.origin()));
      }
    }
    return out;
  }

  /** The synthetic queries for the zones and services being served. */
  static List<byte[]> queries(Responder responder, Snapshot snapshot, List<InetAddress> samples) {
    Random random = new Random(53);
    List<byte[]> out = new ArrayList<>();
    ServedZones served = responder.served();
    List<Zone> zones = served.index().zones();
    for (Zone zone : zones.subList(0, Math.min(MAX_ZONES, zones.size()))) {
      Name apex = zone.origin();
      // DO only where the zone is not signed: in a signed zone it could sign online (NSEC of a
      // NODATA, an answer not prepared yet), which spends the budget and counts as real.
      Variant dnssec = served.signed().of(zone) == null ? Variant.DO : Variant.EDNS;
      for (Variant v : new Variant[] {Variant.NONE, Variant.EDNS, dnssec}) {
        out.add(query(apex, Type.SOA, v, random));
      }
      out.add(query(apex, Type.NS, Variant.EDNS, random));
      out.add(query(apex, Type.DNSKEY, dnssec, random));
      out.add(query(apex, Type.ANY, Variant.EDNS, random));
      out.add(query(apex, Type.AXFR, Variant.NONE, random));
      Iterator<RRset> rrsets = zone.rrsetIterator();
      for (int i = 0; i < STATIC_RRSETS_PER_ZONE && rrsets.hasNext(); i++) {
        RRset r = rrsets.next();
        for (Variant v : new Variant[] {Variant.NONE, Variant.EDNS, dnssec, Variant.ECS4}) {
          out.add(query(r.getName(), r.getType(), v, random));
        }
      }
      // Names that do not exist, each new: the negative path and its cache misses. Never with DO,
      // for the reason above.
      for (int i = 0; i < NEGATIVE_NAMES_PER_ZONE; i++) {
        Name name = child(Long.toHexString(random.nextLong() >>> 1), apex);
        out.add(
            query(
                name,
                i % 4 == 0 ? Type.AAAA : Type.A,
                (i & 1) == 0 ? Variant.EDNS : Variant.NONE,
                random));
      }
    }
    for (String service : services(snapshot)) {
      Name name = name(service);
      Zone zone = served.index().find(name);
      boolean signed = zone != null && served.signed().of(zone) != null;
      for (int type : new int[] {Type.A, Type.AAAA}) {
        for (Variant v : Variant.values()) {
          if (v != Variant.DO || !signed) {
            out.add(query(name, type, v, random));
          }
        }
        // ECS from subnets inside the network map and outside it: the topology trie's walks
        // differ per prefix, and one never taken while profiled is compiled as a trap.
        for (InetAddress a : samples) {
          out.add(query(name, type, a, random));
        }
      }
      out.add(query(name, Type.TXT, Variant.EDNS, random));
    }
    // Outside every zone, CHAOS, a newer EDNS version, an opcode not implemented, malformed.
    out.add(query(name("warm-up.invalid."), Type.A, Variant.EDNS, random));
    // Names shorter than a hash word, and the root: the name hash's short tail.
    out.add(query(name("a."), Type.A, Variant.NONE, random));
    out.add(query(Name.root, Type.NS, Variant.EDNS, random));
    out.add(chaos("version.bind."));
    out.add(chaos("id.server."));
    byte[] badVersion = query(name("warm-up.invalid."), Type.A, Variant.EDNS, random);
    // The OPT closes the packet with no options: its version byte is the sixth from the end.
    badVersion[badVersion.length - 5] = 1;
    out.add(badVersion);
    Message status =
        Message.newQuery(Record.newRecord(name("warm-up.invalid."), Type.A, DClass.IN));
    status.getHeader().setOpcode(Opcode.STATUS);
    out.add(status.toWire());
    byte[] truncated = query(name("warm-up.invalid."), Type.A, Variant.NONE, random);
    out.add(Arrays.copyOf(truncated, 14));
    out.add(Arrays.copyOf(truncated, 5));
    return out;
  }

  /** The EDNS options a synthetic query carries. */
  private enum Variant {
    NONE,
    EDNS,
    DO,
    ECS4,
    ECS6,
    COOKIE,
    NSID
  }

  private static byte[] query(Name name, int type, Variant v, Random random) {
    return query(name, type, v, random, null);
  }

  /** A query with ECS for {@code subnet} (its family's usual prefix). */
  private static byte[] query(Name name, int type, InetAddress subnet, Random random) {
    return query(name, type, Variant.EDNS, random, subnet);
  }

  private static byte[] query(Name name, int type, Variant v, Random random, InetAddress subnet) {
    Message m = Message.newQuery(Record.newRecord(name, type, DClass.IN));
    if (v != Variant.NONE) {
      List<EDNSOption> options = new ArrayList<>();
      if (subnet != null) {
        int prefix = subnet.getAddress().length == 4 ? 24 : 56;
        options.add(
            new ClientSubnetOption(prefix, address(ClientInfo.mask(subnet.getAddress(), prefix))));
      }
      switch (v) {
        case ECS4 -> options.add(new ClientSubnetOption(24, address(random, 4, 24)));
        case ECS6 -> options.add(new ClientSubnetOption(56, address(random, 16, 56)));
        case COOKIE -> {
          byte[] cookie = new byte[8];
          random.nextBytes(cookie);
          options.add(new CookieOption(cookie));
        }
        case NSID -> options.add(new GenericEDNSOption(EDNSOption.Code.NSID, new byte[0]));
        default -> {}
      }
      int flags = v == Variant.DO ? ExtendedFlags.DO : 0;
      m.addRecord(new OPTRecord(EDNS_SIZE, 0, 0, flags, options), Section.ADDITIONAL);
    }
    return m.toWire();
  }

  private static byte[] chaos(String name) {
    return Message.newQuery(Record.newRecord(name(name), Type.TXT, DClass.CH)).toWire();
  }

  /** A random address of {@code bytes} bytes with its first {@code prefix} bits kept. */
  private static InetAddress address(Random random, int bytes, int prefix) {
    byte[] b = new byte[bytes];
    random.nextBytes(b);
    return address(ClientInfo.mask(b, prefix));
  }

  private static InetAddress address(byte[] b) {
    try {
      return InetAddress.getByAddress(b);
    } catch (UnknownHostException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Client subnets to ask from: one inside each network of the topology's map (random host bits),
   * then random ones of both families, which land wherever the GeoIP database or the default region
   * puts them.
   */
  static List<InetAddress> samples(Snapshot snapshot, Random random) {
    List<InetAddress> out = new ArrayList<>();
    for (NetworkMapEntry n : snapshot.config().topology().networks()) {
      if (out.size() == MAX_NETWORK_SAMPLES) {
        break;
      }
      Cidr c = Cidr.parse(n.cidr());
      byte[] net = ClientInfo.mask(c.address(), c.prefix());
      byte[] host = new byte[net.length];
      random.nextBytes(host);
      byte[] hostBits = ClientInfo.mask(host, c.prefix());
      for (int i = 0; i < net.length; i++) {
        net[i] |= (byte) (host[i] ^ hostBits[i]);
      }
      out.add(address(net));
    }
    for (int i = 0; i < 6; i++) {
      out.add(address(random, i % 3 == 2 ? 16 : 4, i % 3 == 2 ? 56 : 24));
    }
    return out;
  }

  /**
   * Client addresses: loopback of both families, then the samples (never contacted: the answers go
   * nowhere).
   */
  private static InetAddress[] clients(List<InetAddress> samples) {
    List<InetAddress> out = new ArrayList<>();
    out.add(InetAddress.getLoopbackAddress());
    out.add(Addresses.of("::1"));
    out.addAll(samples);
    return out.toArray(new InetAddress[0]);
  }

  private static Name name(String text) {
    try {
      return Name.fromString(text);
    } catch (TextParseException e) {
      throw new IllegalArgumentException(text, e);
    }
  }

  private static Name child(String label, Name parent) {
    try {
      return Name.concatenate(Name.fromString(label), parent);
    } catch (TextParseException | NameTooLongException e) {
      return parent;
    }
  }
}
