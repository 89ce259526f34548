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
    SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", node.port()));
    r.setTimeout(Duration.ofSeconds(3));
    return r.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
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
