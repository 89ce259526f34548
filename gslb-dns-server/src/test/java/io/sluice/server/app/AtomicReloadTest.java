package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.control.Actor;
import io.sluice.core.control.CommandResult;
import io.sluice.core.state.ConfigCompiler;
import io.sluice.policy.PolicyPlanner;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A reload is one atomic switch of the whole served state (zone data, encoded answers, policy
 * chain), over the real server: real sockets, a real master file, the real policy planner. Queries
 * running while configurations are swapped never see a name disappear, a name that appeared
 * disappear again, or one answer built from two configurations; a reload that fails midway changes
 * nothing.
 */
class AtomicReloadTest {
  private static final Actor OPERATOR = new Actor("alice", "operator");
  // Big enough that building the served state takes a while, so the old two-step publish (store
  // first, zone data after) left a window the query loops below could see.
  private static final int FILLER_RECORDS = 40_000;

  @TempDir Path dir;
  private Path file;
  private SluiceRuntime runtime;
  private final AtomicBoolean failBuild = new AtomicBoolean();

  /**
   * Generation {@code k} of the configuration: every answer names its generation. {@code www} (a
   * static A record) answers 192.0.2.(10+k); the service {@code app} answers 198.51.100.(10+k);
   * {@code alias} is a static CNAME to {@code app} with TTL 300+k, so one answer holds zone data
   * and a policy decision; {@code fresh} is a service that exists from generation 1 on.
   */
  private String config(int k) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 2 }
        admin: { enabled: false }
        stateDir: state
        pools:
          p1: { endpoints: [ { address: 198.51.100.%d } ] }
          p2: { endpoints: [ { address: 203.0.113.1 } ] }
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            file: filler.zone
            records:
              - { name: www, type: A, data: 192.0.2.%d }
              - { name: alias, type: CNAME, data: app.example.test., ttl: %d }
            services:
              - { name: app, pools: [p1] }
        %s
        """
        .formatted(10 + k, 10 + k, 300 + k, k >= 1 ? "      - { name: fresh, pools: [p2] }" : "");
  }

  private void start(int k) throws Exception {
    start(k, 10);
  }

  private void start(int k, int fillerRecords) throws Exception {
    StringBuilder zone = new StringBuilder("$TTL 600\n");
    for (int i = 0; i < fillerRecords; i++) {
      zone.append("h")
          .append(i)
          .append(" IN A 10.")
          .append(i >> 16 & 255)
          .append('.')
          .append(i >> 8 & 255)
          .append('.')
          .append(i & 255)
          .append('\n');
    }
    Files.writeString(dir.resolve("filler.zone"), zone);
    file = dir.resolve("sluice.yaml");
    Files.writeString(file, config(k));
    ConfigCompiler failing =
        (config, source, running, out) -> {
          if (failBuild.get()) {
            throw new IllegalStateException("injected build failure");
          }
        };
    runtime =
        SluiceRuntime.start(ConfigLoader.load(file), file, CliOverrides.NONE, List.of(failing));
  }

  @AfterEach
  void stop() {
    if (runtime != null) {
      runtime.close();
    }
  }

  private FileConfigReloader reloader() {
    return new FileConfigReloader(file, CliOverrides.NONE, runtime.node());
  }

  private Message ask(SimpleResolver r, String name) throws IOException {
    return r.send(Message.newQuery(Record.newRecord(Name.fromString(name), Type.A, DClass.IN)));
  }

  private SimpleResolver resolver() {
    SimpleResolver r =
        new SimpleResolver(new InetSocketAddress("127.0.0.1", runtime.node().port()));
    r.setTimeout(Duration.ofSeconds(5));
    return r;
  }

  /** The generation an address of the form a.b.c.(10+k) names. */
  private static int generation(Record r) {
    String[] octets = r.rdataToString().split("\\.");
    return Integer.parseInt(octets[3]) - 10;
  }

  /** What the query loops saw that a single, atomic configuration could never have answered. */
  private final List<String> wrong = Collections.synchronizedList(new ArrayList<>());

  private void wrong(String what) {
    if (wrong.size() < 20) {
      wrong.add(what);
    }
  }

  private Thread loop(String name, AtomicBoolean done, AtomicInteger answered, Checker check) {
    Thread t =
        new Thread(
            () -> {
              SimpleResolver r = resolver();
              int[] state = {0, 0};
              while (!done.get()) {
                try {
                  check.check(ask(r, name), state);
                  answered.incrementAndGet();
                } catch (IOException e) {
                  wrong(name + ": no answer (" + e + ")");
                }
              }
            },
            "query " + name);
    t.start();
    return t;
  }

  /** Checks one answer; {@code state} is the loop's memory (last generation, seen-before flag). */
  private interface Checker {
    void check(Message m, int[] state);
  }

  @Test
  void queriesDuringReloadsNeverSeeAMixOfOldAndNewState() throws Exception {
    start(0, FILLER_RECORDS);
    AtomicBoolean done = new AtomicBoolean();
    AtomicInteger answered = new AtomicInteger();
    List<Thread> loops = new ArrayList<>();
    loops.add(
        loop(
            "www.example.test.",
            done,
            answered,
            (m, state) -> {
              List<Record> a = m.getSection(Section.ANSWER);
              if (m.getRcode() != Rcode.NOERROR || a.size() != 1) {
                wrong("www: " + Rcode.string(m.getRcode()) + " " + a);
                return;
              }
              int k = generation(a.get(0));
              if (k < state[0]) {
                wrong("www went back from generation " + state[0] + " to " + k);
              }
              state[0] = k;
            }));
    loops.add(
        loop(
            "alias.example.test.",
            done,
            answered,
            (m, state) -> {
              List<Record> a = m.getSection(Section.ANSWER);
              if (m.getRcode() != Rcode.NOERROR
                  || a.size() != 2
                  || !(a.get(0) instanceof CNAMERecord)) {
                wrong("alias: " + Rcode.string(m.getRcode()) + " " + a);
                return;
              }
              int zoneGeneration = (int) a.get(0).getTTL() - 300;
              int policyGeneration = generation(a.get(1));
              if (zoneGeneration != policyGeneration) {
                wrong(
                    "alias: CNAME of generation "
                        + zoneGeneration
                        + " with the service answer of generation "
                        + policyGeneration);
              }
              if (policyGeneration < state[0]) {
                wrong("app went back from generation " + state[0] + " to " + policyGeneration);
              }
              state[0] = policyGeneration;
            }));
    loops.add(
        loop(
            "fresh.example.test.",
            done,
            answered,
            (m, state) -> {
              List<Record> a = m.getSection(Section.ANSWER);
              boolean answers = m.getRcode() == Rcode.NOERROR && a.size() == 1;
              if (answers) {
                state[1] = 1;
              } else if (m.getRcode() != Rcode.NXDOMAIN) {
                wrong("fresh: " + Rcode.string(m.getRcode()) + " " + a);
              } else if (state[1] == 1) {
                wrong("fresh: NXDOMAIN after it had been answered");
              }
            }));

    List<Long> compiles = new ArrayList<>();
    try {
      for (int k = 1; k <= 6; k++) {
        Files.writeString(file, config(k));
        long before = PolicyPlanner.compilations();
        CommandResult result = reloader().reload(OPERATOR);
        compiles.add(PolicyPlanner.compilations() - before);
        assertTrue(result.changed());
      }
      // Let the loops see the last generation too.
      int seen = answered.get();
      while (answered.get() < seen + 30) {
        Thread.sleep(10);
      }
    } finally {
      done.set(true);
      for (Thread t : loops) {
        t.join();
      }
    }

    assertEquals(List.of(), wrong, "answers no single configuration could give");
    assertEquals(List.of(1L, 1L, 1L, 1L, 1L, 1L), compiles, "policy compiles per reload");
    SimpleResolver r = resolver();
    assertEquals(
        "192.0.2.16",
        ask(r, "www.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
    assertEquals(
        "203.0.113.1",
        ask(r, "fresh.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
  }

  @Test
  void aBuildStepThatThrowsLeavesTheOldStateServing() throws Exception {
    start(0);
    long version = runtime.node().store().current().version();
    Files.writeString(file, config(1));
    failBuild.set(true);

    ConfigException e = assertThrows(ConfigException.class, () -> reloader().reload(OPERATOR));

    assertTrue(e.getMessage().contains("injected build failure"), e.getMessage());
    assertTrue(e.getMessage().contains("the running configuration is kept"), e.getMessage());
    assertEquals(version, runtime.node().store().current().version(), "nothing published");
    SimpleResolver r = resolver();
    assertEquals(
        "192.0.2.10",
        ask(r, "www.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
    assertEquals(
        "198.51.100.10",
        ask(r, "app.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
    assertEquals(Rcode.NXDOMAIN, ask(r, "fresh.example.test.").getRcode());

    failBuild.set(false);
    reloader().reload(OPERATOR);
    assertEquals(
        "192.0.2.11",
        ask(r, "www.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
  }

  @Test
  void aSnapshotListenerThatThrowsDoesNotLeaveTheReloadHalfApplied() throws Exception {
    start(0);
    long before = runtime.node().store().current().configVersion();
    // Health and controller publishes may also reach the listener; only the reload's new
    // configuration version matters here.
    Set<Long> later = ConcurrentHashMap.newKeySet();
    runtime
        .node()
        .store()
        .addListener(
            s -> {
              throw new IllegalStateException("listener bug");
            });
    runtime
        .node()
        .store()
        .addListener(
            s -> {
              if (s.configVersion() > before) {
                later.add(s.configVersion());
              }
            });
    Files.writeString(file, config(1));

    CommandResult result = reloader().reload(OPERATOR);

    assertTrue(result.changed());
    assertEquals(Set.of(before + 1), later, "the listeners after the failing one still ran");
    SimpleResolver r = resolver();
    assertEquals(
        "192.0.2.11",
        ask(r, "www.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
    assertEquals(
        "203.0.113.1",
        ask(r, "fresh.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
    Message alias = ask(r, "alias.example.test.");
    assertEquals(301, alias.getSection(Section.ANSWER).get(0).getTTL());
    assertEquals("198.51.100.11", alias.getSection(Section.ANSWER).get(1).rdataToString());
  }

  @Test
  void startCompilesThePolicyChainOnce() throws Exception {
    long before = PolicyPlanner.compilations();
    start(1);
    assertEquals(1, PolicyPlanner.compilations() - before);
    assertEquals(
        "203.0.113.1",
        ask(resolver(), "fresh.example.test.").getSection(Section.ANSWER).get(0).rdataToString());
  }
}
