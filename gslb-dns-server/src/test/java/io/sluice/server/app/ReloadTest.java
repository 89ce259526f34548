package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.control.Actor;
import io.sluice.core.control.CommandResult;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.dns.response.ServedZones;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/** Reloading swaps zone data and services on a running server; an invalid file changes nothing. */
class ReloadTest {
  private static final Actor OPERATOR = new Actor("alice", "operator");

  @TempDir Path dir;
  private Path file;
  private SluiceNode node;
  private FileConfigReloader reloader;
  private final AtomicInteger okReloads = new AtomicInteger();
  private final AtomicInteger failedReloads = new AtomicInteger();

  private static String config(String wwwAddress, String extra) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        pools:
          p1: { endpoints: [ { address: 198.51.100.1 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: www, type: A, data: %s }
        %s
        """
        .formatted(wwwAddress, extra);
  }

  @BeforeEach
  void start() throws Exception {
    file = dir.resolve("sluice.yaml");
    Files.writeString(file, config("192.0.2.1", ""));
    GslbMetrics metrics =
        new GslbMetrics() {
          @Override
          public void configReload(boolean ok) {
            (ok ? okReloads : failedReloads).incrementAndGet();
          }
        };
    node =
        SluiceNode.start(
            ConfigLoader.load(file), file.toString(), AllEndpointsPlanner::new, metrics);
    reloader = new FileConfigReloader(file, CliOverrides.NONE, node);
  }

  @AfterEach
  void stop() {
    node.close();
  }

  private Message ask(String name) throws Exception {
    return ask(name, Type.A);
  }

  private static List<String> answers(Message m) {
    return m.getSection(Section.ANSWER).stream().map(Record::rdataToString).toList();
  }

  @Test
  void validReloadSwapsZoneDataAndServices() throws Exception {
    assertEquals(List.of("192.0.2.1"), answers(ask("www.example.test.")));
    assertEquals(Rcode.NXDOMAIN, ask("app.example.test.").getRcode());
    long before = node.store().current().configVersion();

    Files.writeString(file, config("192.0.2.2", "    services: [ { name: app, pools: [p1] } ]"));
    CommandResult result = reloader.reload(OPERATOR);

    assertTrue(result.changed());
    assertEquals(before + 1, node.store().current().configVersion());
    assertEquals(List.of("192.0.2.2"), answers(ask("www.example.test.")));
    assertEquals(List.of("198.51.100.1"), answers(ask("app.example.test.")));
    assertEquals(1, okReloads.get());
  }

  /** The record the served zone holds for {@code name}: the very object, not a copy. */
  private Record served(String name) throws Exception {
    Name n = Name.fromString(name);
    ServedZones zones = node.store().current().artifacts().get(ServedZones.class);
    return zones.index().find(n).rrsets(n).iterator().next().first();
  }

  @Test
  void anUnchangedMasterFileIsNotReadAgainAndAChangedOneIsEvenWithItsSizeAndTime()
      throws Exception {
    Path zone = dir.resolve("zone.db");
    Files.writeString(zone, "h1 IN A 10.0.0.1\nh2 IN A 10.0.0.2\n");
    Files.writeString(file, config("192.0.2.1", "    file: zone.db"));
    reloader.reload(OPERATOR);
    assertEquals(List.of("10.0.0.1"), answers(ask("h1.example.test.")));
    Record h1 = served("h1.example.test.");
    Record h2 = served("h2.example.test.");

    // Only the YAML changes: the new zone holds the records the old one read, shared.
    Files.writeString(file, config("192.0.2.2", "    file: zone.db"));
    reloader.reload(OPERATOR);
    assertEquals(List.of("192.0.2.2"), answers(ask("www.example.test.")));
    assertSame(h1, served("h1.example.test."));

    // New content of the same size, with the old modification time: read again all the same.
    FileTime time = Files.getLastModifiedTime(zone);
    Files.writeString(zone, "h1 IN A 10.0.0.9\nh2 IN A 10.0.0.2\n");
    Files.setLastModifiedTime(zone, time);
    reloader.reload(OPERATOR);
    assertEquals(List.of("10.0.0.9"), answers(ask("h1.example.test.")));
    assertEquals(List.of("10.0.0.2"), answers(ask("h2.example.test.")));
    // The file was parsed again, but the record it still has is the one served before.
    assertSame(h2, served("h2.example.test."));
    assertEquals(3, okReloads.get());
  }

  private Message ask(String name, int type) throws Exception {
    SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", node.port()));
    r.setTimeout(Duration.ofSeconds(3));
    return r.send(Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN)));
  }

  /** The answer's records as "TTL data", in the order they came. */
  private List<String> answersWithTtl(String name, int type) throws Exception {
    Message m = ask(name, type);
    return m.getSection(Section.ANSWER).stream()
        .map(r -> r.getTTL() + " " + r.rdataToString())
        .toList();
  }

  @Test
  void aChangedMasterFileServesExactlyItsNewRecordsAndSharesTheOnesItKept() throws Exception {
    reloadChangedMasterFile("");
  }

  /** As above for a file that only the general parser reads: one record spans parentheses. */
  @Test
  void aChangedMasterFileTheGeneralParserReadsSharesTheRecordsItKeptToo() throws Exception {
    reloadChangedMasterFile("z 300 IN TXT ( \"multi\"\n  \"line\" )");
    assertEquals(List.of("300 \"multi\" \"line\""), answersWithTtl("z.example.test.", Type.TXT));
  }

  /**
   * Loads a master file (ending with {@code tail}), then changes it in every way a line can change
   * and checks that the zone serves exactly the new file and shares what it kept exactly.
   */
  private void reloadChangedMasterFile(String tail) throws Exception {
    Path zone = dir.resolve("zone.db");
    Files.writeString(
        zone,
        String.join(
            "\n",
            "a 300 IN A 10.0.0.1",
            "b 300 IN A 10.0.0.2",
            "c 300 IN A 10.0.0.3",
            "d 300 IN A 10.0.0.4",
            "e 300 IN A 10.0.0.5",
            "f 300 IN A 10.0.0.6",
            "g 300 IN A 10.0.0.7",
            "m 300 IN MX 10 Mail.example.test.",
            "t 300 IN TXT \"kept\"",
            "w 300 IN A 10.0.0.20",
            "w 300 IN A 10.0.0.21",
            tail,
            ""));
    Files.writeString(file, config("192.0.2.1", "    file: zone.db"));
    reloader.reload(OPERATOR);
    assertEquals(List.of("10.0.0.6"), answers(ask("f.example.test.")));
    Record a = served("a.example.test.");
    Record c = served("c.example.test.");
    Record f = served("f.example.test.");
    Record g = served("g.example.test.");
    Record m = served("m.example.test.");
    Record t = served("t.example.test.");
    Record w = served("w.example.test.");

    // b removed alone, d and e as a block, n added, g moved up, c's TTL, f's owner spelling and
    // the case of the name in m's data changed.
    Files.writeString(
        zone,
        String.join(
            "\n",
            "a 300 IN A 10.0.0.1",
            "g 300 IN A 10.0.0.7",
            "c 600 IN A 10.0.0.3",
            "n 300 IN A 10.0.0.14",
            "F 300 IN A 10.0.0.6",
            "m 300 IN MX 10 mail.example.test.",
            "t 300 IN TXT \"kept\"",
            "w 300 IN A 10.0.0.20",
            "w 300 IN A 10.0.0.21",
            tail,
            ""));
    reloader.reload(OPERATOR);

    assertEquals(List.of("300 10.0.0.1"), answersWithTtl("a.example.test.", Type.A));
    assertEquals(List.of("300 10.0.0.7"), answersWithTtl("g.example.test.", Type.A));
    assertEquals(List.of("600 10.0.0.3"), answersWithTtl("c.example.test.", Type.A));
    assertEquals(List.of("300 10.0.0.14"), answersWithTtl("n.example.test.", Type.A));
    assertEquals(List.of("300 10.0.0.6"), answersWithTtl("f.example.test.", Type.A));
    assertEquals(List.of("300 10 mail.example.test."), answersWithTtl("m.example.test.", Type.MX));
    assertEquals(List.of("300 \"kept\""), answersWithTtl("t.example.test.", Type.TXT));
    assertEquals(
        List.of("300 10.0.0.20", "300 10.0.0.21"), answersWithTtl("w.example.test.", Type.A));
    for (String gone : List.of("b", "d", "e")) {
      assertEquals(Rcode.NXDOMAIN, ask(gone + ".example.test.").getRcode(), gone);
    }
    // What the file still has exactly is the record served before; what changed at all is not.
    assertSame(a, served("a.example.test."));
    assertSame(g, served("g.example.test."));
    assertSame(t, served("t.example.test."));
    assertSame(w, served("w.example.test."));
    Record c2 = served("c.example.test.");
    assertTrue(c2 != c && c2.getTTL() == 600, "TTL changed: a new record");
    Record f2 = served("f.example.test.");
    assertTrue(f2 != f && f2.getName().toString().equals("F.example.test."), "owner respelled");
    Record m2 = served("m.example.test.");
    assertTrue(m2 != m && m2.rdataToString().equals("10 mail.example.test."), "data respelled");
    assertEquals(2, okReloads.get());
  }

  @Test
  void invalidReloadIsRejectedAndTheOldDataKept() throws Exception {
    long before = node.store().current().version();
    Files.writeString(file, config("1.2.3", ""));

    ConfigException e = assertThrows(ConfigException.class, () -> reloader.reload(OPERATOR));

    assertTrue(
        e.getMessage().contains("zones[0].records[0].data[0]: invalid IPv4 address '1.2.3'"),
        e.getMessage());
    assertEquals(before, node.store().current().version(), "no new snapshot");
    assertEquals(List.of("192.0.2.1"), answers(ask("www.example.test.")));
    assertEquals(1, failedReloads.get());
  }

  @Test
  void structurallyInvalidFileIsRejectedBeforeZonesAreCompiled() throws Exception {
    Files.writeString(file, "dns: { port: fifty }\n");
    ConfigException e = assertThrows(ConfigException.class, () -> reloader.reload(OPERATOR));
    assertTrue(e.getMessage().contains("dns.port"), e.getMessage());
    assertEquals(List.of("192.0.2.1"), answers(ask("www.example.test.")));
    assertEquals(1, failedReloads.get(), "counted once, though never applied");
    assertEquals(0, okReloads.get());
  }

  @Test
  void sighupReloadsTheFile() throws Exception {
    assumeTrue(
        HangupReload.install(reloader) == HangupReload.Status.ACTIVE,
        "SIGHUP is unavailable or ignored in this JVM");
    Files.writeString(file, config("192.0.2.7", ""));
    Process kill =
        new ProcessBuilder("kill", "-HUP", Long.toString(ProcessHandle.current().pid())).start();
    assertEquals(0, kill.waitFor());
    // The signal is handled on another thread, and a loaded CI machine can be slow to deliver it:
    // wait for the new answer, up to a generous deadline.
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    List<String> seen = answers(ask("www.example.test."));
    while (!seen.equals(List.of("192.0.2.7")) && System.nanoTime() < deadline) {
      Thread.sleep(50);
      seen = answers(ask("www.example.test."));
    }
    assertEquals(List.of("192.0.2.7"), seen);
  }

  @Test
  void commandLineOverridesSurviveAReload() throws Exception {
    FileConfigReloader withOverride =
        new FileConfigReloader(
            file, new CliOverrides(node.port(), null, 1, null, null, null), node);
    withOverride.reload(OPERATOR);
    assertEquals(node.port(), node.store().current().config().dns().port());
  }
}
