package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.health.Verdict;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.xbill.DNS.Message;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A node's own probes find a real HTTP backend dead; a tight loop of real DNS queries watches every
 * answer: none that leaves the dead pool out carries the long TTL, in automatic mode (a failover
 * starts) and in manual mode (nothing is shifted, the answers change all the same).
 */
class VerdictTtlOverTheWireTest {
  private static final String SERVICE = "vt.example.test.";
  private static final String PRIMARY = "127.0.0.2";
  private static final String STANDBY = "127.0.0.3";
  private static final long SHIFT_TTL = 7;
  private static final int WATCHED = 300;

  @TempDir Path dir;
  private Backend primary;
  private Backend standby;
  private LiveNode node;

  private static String config(String mode, int primaryPort, int standbyPort) {
    return PrimaryStandbyConfig.yaml(
        "vt",
        PRIMARY,
        primaryPort,
        STANDBY,
        standbyPort,
        """
        mode: %s
        steps: [100]
        window: 60s
        cooldown: 60s
        shiftTtl: %d
        ttlMargin: 1s
        """
            .formatted(mode, SHIFT_TTL));
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    if (primary != null) {
      primary.close();
    }
    if (standby != null) {
      standby.close();
    }
  }

  /** One answer: the addresses handed out and their TTL. */
  private record Answer(Set<String> addresses, long ttl) {}

  private static Answer ask(SimpleResolver dns) throws Exception {
    Message m = dns.send(LiveNode.queryMessage(SERVICE, Type.A, null));
    List<Record> rs = m.getSection(Section.ANSWER);
    assertFalse(rs.isEmpty(), m::toString);
    Set<String> addresses = new TreeSet<>();
    for (Record r : rs) {
      addresses.add(r.rdataToString());
    }
    return new Answer(addresses, rs.get(0).getTTL());
  }

  private Verdict verdict(String endpoint) {
    return node.store().current().health().verdict(endpoint);
  }

  @ParameterizedTest
  @ValueSource(strings = {"auto", "manual"})
  void noAnswerWithoutTheDeadPoolCarriesTheLongTtl(String mode) throws Exception {
    primary = new Backend(PRIMARY);
    standby = new Backend(STANDBY);
    node = LiveNode.start(dir, config(mode, primary.port(), standby.port()));
    SimpleResolver dns = node.resolver(false);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (verdict("primary/a") != Verdict.UP || verdict("standby/a") != Verdict.UP) {
      if (System.nanoTime() > deadline) {
        fail("both pools up");
      }
      Thread.sleep(5);
    }
    assertEquals(new Answer(Set.of(PRIMARY), 60), ask(dns), "the primary, long TTL");

    primary.kill();
    // Every answer from the kill on, until enough answers without the primary have been seen.
    List<Answer> seen = new ArrayList<>();
    int without = 0;
    while (without < WATCHED) {
      if (System.nanoTime() > deadline) {
        fail("the primary's verdict did not go down; answers: " + seen.size());
      }
      Answer a = ask(dns);
      seen.add(a);
      if (!a.addresses().contains(PRIMARY)) {
        without++;
      }
    }
    List<Answer> changed = seen.stream().filter(a -> !a.addresses().contains(PRIMARY)).toList();
    List<Answer> longTtl = changed.stream().filter(a -> a.ttl() > SHIFT_TTL).toList();
    assertTrue(
        longTtl.isEmpty(),
        longTtl.size()
            + " of "
            + changed.size()
            + " answers without the primary carry a long TTL: "
            + longTtl.subList(0, Math.min(5, longTtl.size())));
    assertEquals(Set.of(STANDBY), changed.get(0).addresses());
    System.out.println(
        mode
            + ": "
            + seen.size()
            + " answers after the kill, "
            + changed.size()
            + " without the primary, all with TTL <= "
            + SHIFT_TTL);
  }
}
