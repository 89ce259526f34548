package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * A snapshot published without zone data (a writer's bug) is answered from the zone data seen
 * before it instead of failing every query; a responder that never saw any still fails; and the
 * responder's cache of the zone data it read last does not keep a replaced snapshot alive.
 */
class MissingZoneDataTest {
  private static final String YAML =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
          ns: [ns1.example.test.]
          records: [ { name: www, type: A, data: 192.0.2.80 } ]
      """;

  private static Message ask(Responder r) throws Exception {
    byte[] q =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN))
            .toWire();
    return new Message(r.respond(q, q.length, InetAddress.getLoopbackAddress(), Transport.UDP));
  }

  /** A store published through the zone compiler, and a responder following it. */
  private record Node(
      SluiceConfig config, ConfigPublisher publisher, SnapshotStore store, Responder r) {
    static Node start() throws Exception {
      SluiceConfig config = ConfigLoader.parse(YAML, "t.yaml", Path.of("."));
      ConfigPublisher publisher = new ConfigPublisher(List.of(ServedZones.compiler()));
      SnapshotStore store = new SnapshotStore(publisher.initial(config, "t.yaml"));
      return new Node(
          config,
          publisher,
          store,
          new Responder(store, null, new AllEndpointsPlanner(store), GslbMetrics.NOOP));
    }
  }

  @Test
  void aSnapshotWithoutZoneDataIsAnsweredFromThePreviousOne() throws Exception {
    Node n = Node.start();
    SluiceConfig config = n.config();
    SnapshotStore store = n.store();
    Responder r = n.r();
    assertEquals(Rcode.NOERROR, ask(r).getRcode());

    // A configuration set without its built artifacts: no zone data in the snapshot.
    store.update(s -> s.withConfig(config));
    Message m = ask(r);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertEquals("192.0.2.80", m.getSection(Section.ANSWER).get(0).rdataToString());
  }

  @Test
  void aReplacedSnapshotIsNotKeptAliveWhenNoQueryFollowsTheReload() throws Exception {
    Node n = Node.start();
    SnapshotStore store = n.store();
    Responder r = n.r();
    WeakReference<Snapshot> first = new WeakReference<>(store.current());
    assertEquals(Rcode.NOERROR, ask(r).getRcode());

    // A reload (zone data built and published with the new snapshot), then no query at all.
    n.publisher().publish(store, n.config(), "t.yaml");
    for (int i = 0; i < 20 && first.get() != null; i++) {
      System.gc();
      Thread.sleep(10);
    }
    assertNull(first.get(), "the responder keeps the replaced snapshot reachable");
    assertEquals("192.0.2.80", ask(r).getSection(Section.ANSWER).get(0).rdataToString());
  }

  @Test
  void aResponderThatNeverSawZoneDataFails() throws Exception {
    SluiceConfig config = ConfigLoader.parse(YAML, "t.yaml", Path.of("."));
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    assertThrows(
        IllegalStateException.class,
        () -> new Responder(store, null, new AllEndpointsPlanner(store), GslbMetrics.NOOP));
  }
}
