package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** Every listen address gets UDP and TCP on one port; epoll binds one UDP socket per thread. */
class ListenTest {

  @Test
  void servesIpv4AndIpv6OnOnePortWithOneUdpSocketPerThread() throws Exception {
    String yaml =
        TestZones.CONFIG
            .replace("listen: [127.0.0.1]", "listen: [127.0.0.1, \"::1\"]")
            .replace("threads: 1", "threads: 2");
    try (TestServer server = TestServer.start(yaml)) {
      List<InetSocketAddress> bound = server.node.server().boundAddresses();
      assertTrue(bound.stream().allMatch(a -> a.getPort() == server.port()), bound.toString());
      int perAddress = server.node.server().nativeTransport() ? 2 + 1 : 1 + 1;
      assertEquals(2 * perAddress, bound.size(), bound.toString());
      for (String address : new String[] {"127.0.0.1", "::1"}) {
        for (boolean tcp : new boolean[] {false, true}) {
          SimpleResolver r =
              new SimpleResolver(
                  new InetSocketAddress(InetAddress.getByName(address), server.port()));
          r.setTCP(tcp);
          r.setTimeout(Duration.ofSeconds(3));
          Message m =
              r.send(
                  Message.newQuery(
                      Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN)));
          assertEquals(Rcode.NOERROR, m.getRcode(), address + (tcp ? " tcp" : " udp"));
        }
      }
    }
  }
}
