package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.admin.cli.CtlMain;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node signing a zone with {@code dnssec: {}}: its key is generated into the state directory on
 * first start, {@code sluice ctl keys} shows it with its DS record, and rollover steps run through
 * the admin API, refused with the moment they can run, written to the key files and audited.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DnssecKeysEndToEndTest {
  static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          dnssec: {}
        - origin: plain.test.
          soa: { mname: ns1.plain.test., rname: h.plain.test. }
          ns: [ns1.plain.test.]
      """;

  @TempDir static Path dir;
  private static LiveNode node;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, CONFIG);
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static LiveNode.CtlRun ctl(String... args) {
    return LiveNode.ctl(
        Map.of("SLUICE_ADMIN_URL", node.adminUrl(), "SLUICE_TOKEN", node.token), args);
  }

  @Test
  @Order(1)
  void firstStartGeneratesAKeyThatCtlKeysShowsWithItsDs() throws Exception {
    Path keys = dir.resolve("state/keys/example.test");
    List<Path> files;
    try (Stream<Path> s = Files.list(keys)) {
      files = s.sorted().toList();
    }
    assertEquals(2, files.size(), files.toString());
    Path privateFile = files.get(1);
    assertTrue(
        privateFile
            .getFileName()
            .toString()
            .matches("Kexample\\.test\\.\\+013\\+\\d{5}\\.private"));
    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(privateFile)));

    LiveNode.CtlRun all = ctl("keys");
    assertEquals(CtlMain.OK, all.exit(), all.err());
    assertTrue(all.out().contains("zone example.test."), all.out());
    assertTrue(all.out().contains("ECDSAP256SHA256  CSK   active"), all.out());
    assertTrue(all.out().contains("  example.test. 3600 IN DS "), all.out());
    assertTrue(all.out().contains("ksk-publish (from "), all.out());

    JsonNode z = node.get("/api/v1/zones/example.test/keys").json();
    assertEquals("active", z.path("keys").get(0).path("state").asText());
    assertEquals("CSK", z.path("keys").get(0).path("role").asText());
    assertEquals(1, z.path("ds").size());
    assertEquals(404, node.get("/api/v1/zones/plain.test/keys").status());
  }

  @Test
  @Order(2)
  void rolloverStepsAreRefusedUntilTheirTimeAndAudited() throws Exception {
    LiveNode.CtlRun zsk = ctl("keys", "rollover", "example.test", "zsk-publish");
    assertEquals(CtlMain.REFUSED, zsk.exit(), zsk.out() + zsk.err());
    assertTrue(zsk.err().contains("the zone has no active ZSK"), zsk.err());

    LiveNode.CtlRun publish =
        ctl("keys", "rollover", "example.test.", "ksk-publish", "--reason", "yearly KSK roll");
    assertEquals(CtlMain.OK, publish.exit(), publish.err());
    assertTrue(publish.out().startsWith("published the new CSK "), publish.out());
    JsonNode z = node.get("/api/v1/zones/example.test/keys").json();
    assertEquals(2, z.path("keys").size());
    assertEquals(2, z.path("ds").size(), "the parent should hold both DS records now");
    try (Stream<Path> s = Files.list(dir.resolve("state/keys/example.test"))) {
      assertEquals(4, s.count());
    }

    LiveNode.CtlRun early = ctl("keys", "rollover", "example.test", "ksk-ds-seen");
    assertEquals(CtlMain.REFUSED, early.exit());
    assertTrue(early.err().contains("ksk-ds-seen can run from "), early.err());
    LiveNode.Reply r =
        node.post("/api/v1/zones/example.test/keys/rollover", "{\"step\": \"ksk-ds-seen\"}");
    assertEquals(409, r.status());
    assertTrue(r.json().path("notBefore").isTextual(), r.body());
    assertEquals(
        400,
        node.post("/api/v1/zones/example.test/keys/rollover", "{\"step\": \"zsk-go\"}").status());

    JsonNode audit = node.get("/api/v1/audit").json();
    assertTrue(audit.toString().contains("dnssec-ksk-publish"), audit.toString());
    assertTrue(audit.toString().contains("yearly KSK roll"), audit.toString());
  }
}
