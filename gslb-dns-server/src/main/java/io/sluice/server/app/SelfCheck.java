package io.sluice.server.app;

import io.netty.channel.Channel;
import io.sluice.core.config.ZoneConfig;
import io.sluice.dns.server.DnsServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The check a process taking over passes before the running node stops reading the listening
 * sockets: its own DNS path, over a real socket of its own, answers the SOA of the zones it serves
 * authoritatively. The sockets handed over are read by both processes meanwhile, so a query sent
 * there could be answered by the old one: hence the private loopback socket.
 */
final class SelfCheck {
  /** Zones asked (the first ones): enough to prove the path without a long start on 10,000. */
  static final int MAX_ZONES = 16;

  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final int TRIES = 3;

  private SelfCheck() {}

  /** Throws naming the zone whose SOA was not answered as expected. */
  static void run(DnsServer server, List<ZoneConfig> zones) throws IOException {
    Channel probe;
    try {
      probe = server.bindSelfCheck();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    try {
      SimpleResolver resolver = new SimpleResolver((InetSocketAddress) probe.localAddress());
      resolver.setTimeout(TIMEOUT);
      for (ZoneConfig zone : zones.subList(0, Math.min(MAX_ZONES, zones.size()))) {
        Name origin =
            Name.fromString(zone.origin().endsWith(".") ? zone.origin() : zone.origin() + ".");
        Message reply = ask(resolver, origin);
        boolean soa = false;
        for (Record r : reply.getSection(Section.ANSWER)) {
          soa |= r.getType() == Type.SOA && r.getName().equals(origin);
        }
        if (reply.getRcode() != Rcode.NOERROR || !reply.getHeader().getFlag(Flags.AA) || !soa) {
          throw new IOException(
              "self-check: the SOA of "
                  + origin
                  + " was not answered authoritatively (rcode "
                  + Rcode.string(reply.getRcode())
                  + ")");
        }
      }
    } finally {
      probe.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
  }

  private static Message ask(SimpleResolver resolver, Name origin) throws IOException {
    IOException last = null;
    for (int i = 0; i < TRIES; i++) {
      try {
        return resolver.send(Message.newQuery(Record.newRecord(origin, Type.SOA, DClass.IN)));
      } catch (IOException e) {
        last = e;
      }
    }
    throw new IOException("self-check: no answer for the SOA of " + origin + ": " + last, last);
  }
}
