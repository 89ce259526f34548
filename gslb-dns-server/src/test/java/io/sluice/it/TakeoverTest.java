package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.sluice.core.testing.LoopbackPorts;
import io.sluice.dns.https.DohClient;
import io.sluice.server.app.SluiceChild;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Zero-downtime restarts between real Sluice processes on real sockets, while a UDP and a TCP query
 * loop (dnsjava) run throughout and check every answer: a takeover whose new process fails after
 * the old one released its state (its admin port is taken) leaves the old one serving with its
 * state back; a takeover that succeeds makes the old process exit; a new process with a broken
 * configuration changes nothing. Not one query is lost, every answer is right, the DoH listener
 * moves too, and an operator's drain made before survives on the new process.
 */
class TakeoverTest {
  private static final Duration START = Duration.ofSeconds(120);
  // Generous: a loaded machine may pause a JVM; a late answer is not a lost one.
  private static final Duration QUERY_TIMEOUT = Duration.ofSeconds(5);

  private static final String CONFIG =
      """
      dns:
        listen: [127.0.0.1]
        threads: 2
        https: { listen: [127.0.0.1], port: DOH, idleTimeout: 1s }
      admin:
        listen: 127.0.0.1
      stateDir: STATE
      pools:
        w1: { endpoints: [ { address: 192.0.2.1 } ] }
        w2: { endpoints: [ { address: 192.0.2.2 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: static, type: A, data: 192.0.2.10 }
          services:
            - name: www
              ttl: 30
              chain: [healthy, weighted]
              pools: [ { pool: w1, weight: 1 }, { pool: w2, weight: 1 } ]
      """;

  @TempDir Path dir;

  private final HttpClient http = HttpClient.newHttpClient();

  @Test
  void queriesFlowThroughAFailedAndASuccessfulTakeoverWithoutALoss() throws Exception {
    assumeTrue(Epoll.isAvailable(), "socket handover needs Linux epoll");
    Path state = dir.resolve("state");
    Path config = dir.resolve("sluice.yaml");
    int dohPort = LoopbackPorts.reserve();
    String yaml =
        CONFIG.replace("STATE", state.toString()).replace("DOH", Integer.toString(dohPort));
    Files.writeString(config, yaml);
    int dnsPort = LoopbackPorts.reserve();
    int adminPort = LoopbackPorts.reserve();
    List<Process> started = new ArrayList<>();
    Loop loop = null;
    try {
      Process a = start(started, config, dnsPort, adminPort, "a", false);
      awaitLine(a, "a", "serving 1 zone(s)");
      String token = Files.readString(state.resolve("admin.token")).trim();
      assertEquals(200, post(adminPort, token, "/api/v1/pools/w1/drain"), "drain w1");
      assertTrue(drained(adminPort, token), "w1 drained on the first process");
      assertEquals("192.0.2.10", doh(dohPort, state), "DoH on the first process");

      loop = new Loop(dnsPort);
      loop.start();
      loop.awaitAnswers(20);

      // A new process that fails after the old one released its state: its admin port is taken.
      int busy = LoopbackPorts.reserve();
      try (ServerSocket taken = new ServerSocket(busy, 1, InetAddress.getLoopbackAddress())) {
        Process b = start(started, config, dnsPort, busy, "b", true);
        assertTrue(b.waitFor(START.toSeconds(), TimeUnit.SECONDS), log("b"));
        assertEquals(1, b.exitValue(), log("b"));
      }
      awaitLine(a, "a", "resumed: serving with the state directory again");
      assertTrue(a.isAlive(), log("a"));
      assertTrue(drained(adminPort, token), "the first process has its state back: " + log("a"));
      loop.awaitAnswers(20);

      // A new process with a broken configuration never reaches the running one.
      Path broken = dir.resolve("broken.yaml");
      Files.writeString(broken, yaml + "  bogus: [\n");
      Process d = start(started, broken, dnsPort, adminPort, "d", true);
      assertTrue(d.waitFor(START.toSeconds(), TimeUnit.SECONDS), log("d"));
      assertEquals(2, d.exitValue(), log("d"));
      assertTrue(a.isAlive(), log("a"));

      // The takeover that succeeds: the first process drains and exits by itself.
      Process c = start(started, config, dnsPort, adminPort, "c", true);
      awaitLine(c, "c", "took over: the previous node stopped reading");
      assertTrue(a.waitFor(START.toSeconds(), TimeUnit.SECONDS), "a exits: " + log("a"));
      assertEquals(0, a.exitValue(), log("a"));
      long before = loop.answered.get();
      loop.awaitAnswers(before + 40);
      assertTrue(drained(adminPort, token), "the drain survives the restart: " + log("c"));
      assertTrue(c.isAlive(), log("c"));
      // The DoH listener moved too: a is gone, so c answers.
      assertEquals("192.0.2.10", doh(dohPort, state), "DoH after the takeover");

      loop.stop();
      assertEquals(List.of(), List.copyOf(loop.problems), "lost or wrong answers");
      assertTrue(loop.answered.get() > before, "answers after the takeover");
    } catch (AssertionError | IOException e) {
      // What each process logged says at which step a query went unanswered.
      throw new AssertionError(e.getMessage() + log("a") + log("b") + log("d") + log("c"), e);
    } finally {
      if (loop != null) {
        loop.stop();
      }
      for (Process p : started) {
        p.destroy();
        if (!p.waitFor(10, TimeUnit.SECONDS)) {
          p.destroyForcibly();
        }
      }
    }
  }

  private Process start(
      List<Process> started, Path config, int dnsPort, int adminPort, String name, boolean takeover)
      throws IOException {
    List<String> cmd =
        SluiceChild.command(
            128,
            "run",
            "--config",
            config.toString(),
            "--port",
            Integer.toString(dnsPort),
            "--admin-port",
            Integer.toString(adminPort));
    if (takeover) {
      cmd.add("--takeover");
    }
    Process p =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(dir.resolve(name + ".log").toFile())
            .start();
    started.add(p);
    return p;
  }

  private String log(String name) {
    if (!Files.exists(dir.resolve(name + ".log"))) {
      return "";
    }
    try {
      return "\n---- " + name + ".log\n" + Files.readString(dir.resolve(name + ".log"));
    } catch (IOException e) {
      return e.toString();
    }
  }

  private void awaitLine(Process p, String name, String text) throws Exception {
    long deadline = System.nanoTime() + START.toNanos();
    while (System.nanoTime() < deadline) {
      if (Files.readString(dir.resolve(name + ".log")).contains(text)) {
        return;
      }
      if (!p.isAlive()) {
        fail(name + " exited (" + p.exitValue() + ") before '" + text + "':" + log(name));
      }
      Thread.sleep(50);
    }
    fail("no '" + text + "' from " + name + ":" + log(name));
  }

  /** Asks DoH (a new connection) for the static name; returns the address answered. */
  private static String doh(int port, Path state) throws Exception {
    DohClient client = new DohClient(port, state.resolve("https.crt"), HttpClient.Version.HTTP_2);
    HttpResponse<byte[]> r =
        client.get(
            Message.newQuery(
                Record.newRecord(Name.fromString("static.example.test."), Type.A, DClass.IN)));
    assertEquals(200, r.statusCode());
    List<Record> answer = new Message(r.body()).getSection(Section.ANSWER);
    return ((ARecord) answer.get(0)).getAddress().getHostAddress();
  }

  private int post(int adminPort, String token, String path) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
            .header("Authorization", "Bearer " + token)
            .header("Content-Type", "application/json")
            .timeout(Duration.ofSeconds(20))
            .POST(HttpRequest.BodyPublishers.ofString("{\"reason\":\"rack power work\"}"))
            .build();
    return http.send(req, HttpResponse.BodyHandlers.ofString()).statusCode();
  }

  private boolean drained(int adminPort, String token) throws Exception {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/api/v1/pools/w1"))
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(20))
            .build();
    HttpResponse<String> r = http.send(req, HttpResponse.BodyHandlers.ofString());
    assertEquals(200, r.statusCode(), r.body());
    return r.body().replace(" ", "").contains("\"drained\":true");
  }

  /**
   * A UDP and a TCP client asking in turn for a static name and the service, each query once (no
   * retry), recording every timeout and every wrong answer.
   */
  private static final class Loop {
    private final int port;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicLong answered = new AtomicLong();
    private final Queue<String> problems = new ConcurrentLinkedQueue<>();
    private final List<Thread> threads = new ArrayList<>();

    Loop(int port) {
      this.port = port;
    }

    void start() {
      for (boolean tcp : new boolean[] {false, true}) {
        Thread t = new Thread(() -> run(tcp), tcp ? "query-tcp" : "query-udp");
        t.setDaemon(true);
        threads.add(t);
        t.start();
      }
    }

    private void run(boolean tcp) {
      try {
        SimpleResolver resolver = new SimpleResolver(InetAddress.getLoopbackAddress());
        resolver.setPort(port);
        resolver.setTCP(tcp);
        resolver.setTimeout(QUERY_TIMEOUT);
        Name stat = Name.fromString("static.example.test.");
        Name www = Name.fromString("www.example.test.");
        for (long i = 0; running.get(); i++) {
          Name name = i % 2 == 0 ? stat : www;
          // After the drain of w1, the service answers w2 only.
          String expected = name == stat ? "192.0.2.10" : "192.0.2.2";
          String transport = tcp ? "tcp" : "udp";
          try {
            Message reply =
                resolver.send(Message.newQuery(Record.newRecord(name, Type.A, DClass.IN)));
            List<Record> answer = reply.getSection(Section.ANSWER);
            if (reply.getRcode() != Rcode.NOERROR
                || answer.size() != 1
                || !(answer.get(0) instanceof ARecord a)
                || !a.getAddress().getHostAddress().equals(expected)) {
              problems.add(transport + " " + name + ": wrong answer " + reply);
            } else {
              answered.incrementAndGet();
            }
          } catch (IOException e) {
            problems.add(
                java.time.Instant.now() + " " + transport + " " + name + ": no answer: " + e);
          }
        }
      } catch (IOException e) {
        problems.add("resolver: " + e);
      }
    }

    void awaitAnswers(long n) throws InterruptedException {
      long deadline = System.nanoTime() + START.toNanos();
      while (answered.get() < n && System.nanoTime() < deadline && problems.isEmpty()) {
        Thread.sleep(20);
      }
      assertTrue(problems.isEmpty(), () -> String.join("\n", problems));
      assertFalse(answered.get() < n, "answers: " + answered.get());
    }

    void stop() throws InterruptedException {
      running.set(false);
      for (Thread t : threads) {
        t.join(TimeUnit.SECONDS.toMillis(QUERY_TIMEOUT.toSeconds() * 2));
      }
    }
  }
}
