package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.server.app.SluiceNode;
import java.net.InetAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
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
import org.xbill.DNS.Type;

/**
 * How planner decisions become answers: addresses, CNAME, EMPTY, FAIL, TTL and ECS scope, and the
 * encoded-answer cache never serving one decision's bytes for another. The planner is scripted here
 * because it is the boundary this module talks to.
 */
class ServiceAnswerTest {
  private static final AtomicReference<Decision> next = new AtomicReference<>();
  private static final AtomicReference<ClientInfo> lastClient = new AtomicReference<>();
  private static SluiceNode node;
  private static TestServer server;

  @BeforeAll
  static void start() throws Exception {
    SluiceConfig config = ConfigLoader.parse(TestZones.CONFIG, "test.yaml", Path.of("."));
    // The store and the planner are built by the caller, as the full server's wiring does.
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    AnswerPlanner scripted =
        (String service, AddressFamily family, ClientInfo client) -> {
          lastClient.set(client);
          Decision d = next.get();
          if (d == null) {
            throw new IllegalStateException("planner bug");
          }
          return d;
        };
    node = SluiceNode.start(config, "test.yaml", store, scripted, GslbMetrics.NOOP);
    server = new TestServer(node);
  }

  @AfterAll
  static void stop() {
    node.close();
  }

  private static byte[] v4(String a) throws Exception {
    return InetAddress.getByName(a).getAddress();
  }

  private static Message ask(int type, ClientSubnetOption ecs) throws Exception {
    Message q =
        Message.newQuery(Record.newRecord(Name.fromString("app.example.test."), type, DClass.IN));
    if (ecs != null) {
      q.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(ecs)), Section.ADDITIONAL);
    }
    return new Message(server.udp(q.toWire()));
  }

  @Test
  void addressesOfTheAskedFamilyWithTheDecisionTtl() throws Exception {
    next.set(
        Decision.answer(
            List.of(v4("198.51.100.7"), InetAddress.getByName("2001:db8::7").getAddress()),
            42,
            0,
            List.of("east")));
    Message a = ask(Type.A, null);
    assertEquals(1, a.getSection(Section.ANSWER).size());
    assertEquals("198.51.100.7", a.getSection(Section.ANSWER).get(0).rdataToString());
    assertEquals(42, a.getSection(Section.ANSWER).get(0).getTTL());
    Message aaaa = ask(Type.AAAA, null);
    assertEquals(Type.AAAA, aaaa.getSection(Section.ANSWER).get(0).getType());
  }

  @Test
  void noAddressOfTheFamilyIsNodata() throws Exception {
    next.set(Decision.answer(List.of(v4("198.51.100.7")), 42, 0, List.of("east")));
    Message m = ask(Type.AAAA, null);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertEquals(0, m.getSection(Section.ANSWER).size());
    assertEquals(Type.SOA, m.getSection(Section.AUTHORITY).get(0).getType());
    assertEquals(42, m.getSection(Section.AUTHORITY).get(0).getTTL(), "capped to the decision's");
  }

  @Test
  void emptyIsNodataAndFailIsServfail() throws Exception {
    next.set(Decision.of(Decision.Outcome.EMPTY, 10));
    Message empty = ask(Type.A, null);
    assertEquals(Rcode.NOERROR, empty.getRcode());
    assertEquals(0, empty.getSection(Section.ANSWER).size());
    assertTrue(empty.getHeader().getFlag(Flags.AA));

    next.set(Decision.of(Decision.Outcome.FAIL, 10));
    Message fail = ask(Type.A, null);
    assertEquals(Rcode.SERVFAIL, fail.getRcode());
    assertFalse(fail.getHeader().getFlag(Flags.AA));
  }

  @Test
  void aFailingPlannerGivesTheServicesLastAnswer() throws Exception {
    next.set(Decision.answer(List.of(v4("198.51.100.9")), 30, 0, List.of("east")));
    assertEquals(Rcode.NOERROR, ask(Type.A, null).getRcode());
    next.set(null);
    // The scripted planner throws when it has no decision, as a buggy planner would: an answer
    // it gave in this snapshot version is served again (the first one kept: other tests of this
    // class may have given it, an address or a CNAME), never SERVFAIL. SERVFAIL is only for a
    // service that never answered, which OverloadTest covers.
    Message m = ask(Type.A, null);
    assertEquals(Rcode.NOERROR, m.getRcode());
    assertFalse(m.getSection(Section.ANSWER).isEmpty(), m.toString());
  }

  @Test
  void cnameDecision() throws Exception {
    next.set(Decision.cname("edge.cdn.example.net.", 15, 0, List.of("alias")));
    Record r = ask(Type.A, null).getSection(Section.ANSWER).get(0);
    assertEquals(Type.CNAME, r.getType());
    assertEquals("edge.cdn.example.net.", r.rdataToString());
    assertEquals(15, r.getTTL());
  }

  @Test
  void ecsSubnetIsTheClientAndTheScopeIsEchoed() throws Exception {
    next.set(Decision.answer(List.of(v4("198.51.100.2")), 30, 16, List.of("west")));
    ClientSubnetOption ecs = new ClientSubnetOption(24, InetAddress.getByName("10.2.3.0"));
    Message m = ask(Type.A, ecs);
    ClientSubnetOption echoed =
        (ClientSubnetOption) m.getOPT().getOptions(EDNSOption.Code.CLIENT_SUBNET).get(0);
    assertEquals(16, echoed.getScopePrefixLength());
    assertEquals(24, lastClient.get().sourcePrefix());
    assertTrue(lastClient.get().fromEcs());

    ask(Type.A, null);
    assertFalse(lastClient.get().fromEcs(), "without ECS the resolver's address is the client");
  }

  @Test
  void cachedBytesFollowTheDecisionInstance() throws Exception {
    Decision one = Decision.answer(List.of(v4("198.51.100.1")), 30, 0, List.of("east"));
    Decision two = Decision.answer(List.of(v4("198.51.100.2")), 30, 0, List.of("west"));
    for (int i = 0; i < 20; i++) {
      Decision d = i % 2 == 0 ? one : two;
      next.set(d);
      String expected = i % 2 == 0 ? "198.51.100.1" : "198.51.100.2";
      assertEquals(
          expected, ask(Type.A, null).getSection(Section.ANSWER).get(0).rdataToString(), "i=" + i);
    }
  }
}
