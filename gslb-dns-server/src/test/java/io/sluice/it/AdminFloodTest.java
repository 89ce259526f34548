package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.testing.SlowLoris;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * A whole node under a slow-loris flood of its admin listener: a thousand loopback connections
 * without a token trickle header lines, yet an operator's change and rollback go through, TCP DNS
 * answers, and every trickling connection is eventually closed. Also: the node refuses a local
 * admin token file that other users can read.
 */
class AdminFloodTest {
  private static final int FLOOD = 1000;
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin:
        listen: 127.0.0.1
        port: 0
        connections: { max: 64, perSource: 48, requestDeadline: 2s }
      stateDir: state
      regions:
        eu: { location: { lat: 51.5, lon: -0.1 } }
      topology: { defaultRegion: eu }
      pools:
        p-a: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
        p-b: { region: eu, endpoints: [ { name: b, address: 192.0.2.12 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - name: app
              ttl: 30
              pools: [{ pool: p-a, weight: 1 }, { pool: p-b, weight: 1 }]
              traffic: { mode: manual }
      """;

  @TempDir Path dir;

  @Test
  void theOperatorAndTcpDnsGetThroughASlowLorisFlood() throws Exception {
    try (LiveNode node = LiveNode.start(dir, CONFIG);
        SlowLoris flood =
            SlowLoris.start(
                node.runtime.admin().port(),
                FLOOD,
                "POST /api/v1/rollback HTTP/1.1",
                Duration.ofMillis(200))) {
      LiveNode.Reply set =
          node.put(
              "/api/v1/services/app.example.test/weights",
              "{\"weights\":{\"p-a\":3,\"p-b\":1},\"reason\":\"flood test\"}");
      assertEquals(200, set.status(), set.body());
      LiveNode.Reply rollback =
          node.post("/api/v1/services/app.example.test/rollback", "{\"reason\":\"flood\"}");
      assertEquals(200, rollback.status(), rollback.body());
      Message tcp = node.query("app.example.test.", Type.A, null, true);
      assertEquals(Rcode.NOERROR, tcp.getRcode());
      assertEquals(1, LiveNode.addresses(tcp).size(), tcp.toString());
      assertTrue(node.runtime.admin().connectionCounts().open() <= 64);

      assertEquals(0, flood.stillOpenAfter(Duration.ofSeconds(20)));
      var counts = node.runtime.admin().connectionCounts();
      assertTrue(counts.timedOut() > 0, counts.toString());
    }
  }

  @Test
  void aLocalAdminTokenOtherUsersCanReadStopsTheStart() throws Exception {
    Path state = Files.createDirectories(dir.resolve("state"));
    Path token = state.resolve("admin.token");
    Files.writeString(token, "local-token\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    IOException e = assertThrows(IOException.class, () -> LiveNode.start(dir, CONFIG).close());
    assertTrue(
        e.getMessage().contains("is accessible to other users (mode rw-r--r--)"), e.getMessage());
    assertTrue(e.getMessage().contains("chmod 600 " + token), e.getMessage());
  }
}
