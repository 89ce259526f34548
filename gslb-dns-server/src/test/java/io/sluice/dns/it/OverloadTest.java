package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DnsSocketStats;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.server.app.SluiceNode;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * Overload over real sockets: a flood from several threads at a node with one event loop and a
 * small receive buffer is dropped by the kernel at the socket, counted, and never queued in the
 * server; every answer that goes out is right, and another client is still answered. A planner that
 * fails falls back to the service's last answer instead of SERVFAIL.
 */
class OverloadTest {
  private static final int BUFFER = 64 * 1024;
  private static final int FLOODERS = 4;
  private static final int PER_FLOODER = 40_000;

  /** Keeps the socket stats the listener registers and counts policy events. */
  static final class Recorder implements GslbMetrics {
    volatile DnsSocketStats sockets;
    final Map<String, LongAdder> events = new ConcurrentHashMap<>();

    @Override
    public void dnsSockets(DnsSocketStats stats) {
      sockets = stats;
    }

    @Override
    public void policyEvent(String service, String event) {
      events.computeIfAbsent(service + " " + event, k -> new LongAdder()).increment();
    }

    long events(String key) {
      LongAdder n = events.get(key);
      return n == null ? 0 : n.sum();
    }
  }

  @Test
  void floodIsDroppedAtTheSocketAndWhatIsAnsweredIsRight() throws Exception {
    Recorder metrics = new Recorder();
    String yaml =
        TestZones.CONFIG.replace("threads: 1", "threads: 1\n  socketBufferBytes: " + BUFFER);
    try (TestServer server = TestServer.start(yaml, java.nio.file.Path.of("."), metrics)) {
      DnsSocketStats stats = metrics.sockets;
      assertNotNull(stats, "the listener registers its socket stats");
      long dropsBefore = stats.receiveBufferDrops();
      AtomicBoolean flooding = new AtomicBoolean(true);
      AtomicLong maxReceiveQueue = new AtomicLong();
      AtomicLong maxSendQueue = new AtomicLong();
      Thread sampler =
          new Thread(
              () -> {
                while (flooding.get()) {
                  maxReceiveQueue.accumulateAndGet(stats.receiveQueueBytes(), Math::max);
                  maxSendQueue.accumulateAndGet(stats.sendQueueBytes(), Math::max);
                  sleep(5);
                }
              });
      sampler.start();
      List<Flooder> flooders = new ArrayList<>();
      for (int i = 0; i < FLOODERS; i++) {
        flooders.add(new Flooder(server.port()));
      }
      flooders.forEach(Flooder::start);
      // A second client during the flood: its queries share the kernel queue with the flood, so
      // one may be lost, but a retry gets through and the answer is right.
      int answered = 0;
      for (int i = 0; i < 20; i++) {
        Message m = withRetries(server);
        if (m != null) {
          answered++;
          assertEquals(Rcode.NOERROR, m.getRcode());
          assertEquals(
              List.of("www.example.test. 300 A 192.0.2.80", "www.example.test. 300 A 192.0.2.81"),
              TestServer.section(m, Section.ANSWER));
        }
      }
      for (Flooder f : flooders) {
        f.join();
      }
      flooding.set(false);
      sampler.join();

      long sent = (long) FLOODERS * PER_FLOODER;
      long replies = flooders.stream().mapToLong(f -> f.replies).sum();
      long wrong = flooders.stream().mapToLong(f -> f.wrong).sum();
      assertEquals(0, wrong, "every reply answers its own query, correctly");
      assertTrue(replies > 0, "the node kept answering during the flood");
      assertEquals(20, answered, "the second client was answered");
      long drops = stats.receiveBufferDrops() - dropsBefore;
      assertTrue(drops > 0, "the flood overflowed the receive buffer: " + replies + "/" + sent);
      // The kernel holds about the receive buffer (doubled by the kernel for its overhead); it
      // counts each datagram's full allocation and admits the ones in flight on every core before
      // it drops, and one run saw 1.8 times the doubled buffer. Twice that still tells a bounded
      // queue from the flood's 160,000 datagrams (over 100 MB if they were all kept).
      assertTrue(maxReceiveQueue.get() <= 4L * BUFFER + 8192, "receive " + maxReceiveQueue);
      assertTrue(maxSendQueue.get() <= 256 * 1024 + 64 * 1024, "send " + maxSendQueue);
      assertTrue(stats.sendQueueDrops() >= 0);
      // Idle again: the queues drain and the node answers at once.
      assertEquals(Rcode.NOERROR, server.query("www.example.test.", Type.A, false).getRcode());
      assertEquals(0, stats.sendQueueBytes());
    }
  }

  private static Message withRetries(TestServer server) throws IOException {
    SimpleResolver r = server.resolver(false);
    r.setTimeout(Duration.ofMillis(500));
    Message q =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN));
    for (int attempt = 0; attempt < 40; attempt++) {
      try {
        return r.send(q);
      } catch (IOException lost) {
        // dropped with the flood at the full socket (a timeout); try again
      }
    }
    return null;
  }

  /** Sends queries as fast as it can from one socket and checks every reply it gets back. */
  private static final class Flooder extends Thread {
    private final int port;
    volatile long replies;
    volatile long wrong;

    Flooder(int port) {
      this.port = port;
      setDaemon(true);
    }

    @Override
    public void run() {
      try (DatagramSocket s = new DatagramSocket()) {
        s.setReceiveBufferSize(4 << 20);
        Message q =
            Message.newQuery(
                Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN));
        byte[] wire = q.toWire();
        Thread reader = new Thread(() -> read(s));
        reader.setDaemon(true);
        reader.start();
        for (int i = 0; i < PER_FLOODER; i++) {
          wire[0] = (byte) (i >>> 8);
          wire[1] = (byte) i;
          s.send(new DatagramPacket(wire, wire.length, TestServer.LOOPBACK, port));
        }
        reader.join(); // it stops once no reply has come for a second
      } catch (IOException | InterruptedException e) {
        throw new IllegalStateException(e);
      }
    }

    private void read(DatagramSocket s) {
      byte[] buf = new byte[1500];
      try {
        s.setSoTimeout(1000);
        while (true) {
          DatagramPacket p = new DatagramPacket(buf, buf.length);
          s.receive(p);
          Message m = new Message(java.util.Arrays.copyOf(buf, p.getLength()));
          boolean right =
              m.getRcode() == Rcode.NOERROR
                  && m.getQuestion().getName().toString().equals("www.example.test.")
                  && m.getSection(Section.ANSWER).size() == 2;
          replies++;
          if (!right) {
            wrong++;
          }
        }
      } catch (SocketTimeoutException done) {
        // the flood is over
      } catch (IOException e) {
        wrong++;
      }
    }
  }

  /** Delegates to the real planner until told to fail, as a planner bug would. */
  static final class FailingPlanner implements AnswerPlanner {
    final AnswerPlanner real;
    volatile boolean failing;

    FailingPlanner(AnswerPlanner real) {
      this.real = real;
    }

    @Override
    public Decision plan(String service, AddressFamily family, ClientInfo client) {
      return plan(null, service, family, client);
    }

    @Override
    public Decision plan(Snapshot s, String service, AddressFamily family, ClientInfo client) {
      if (failing) {
        throw new IllegalStateException("no state for " + service);
      }
      return s == null ? real.plan(service, family, client) : real.plan(s, service, family, client);
    }
  }

  @Test
  void failingPlannerServesTheServicesLastAnswer() throws Exception {
    Recorder metrics = new Recorder();
    List<FailingPlanner> planners = new ArrayList<>();
    var config =
        io.sluice.core.config.ConfigLoader.parse(
            TestZones.CONFIG, "test.yaml", java.nio.file.Path.of("."));
    try (TestServer server =
        new TestServer(
            SluiceNode.start(
                config,
                "test.yaml",
                store -> {
                  FailingPlanner p = new FailingPlanner(new AllEndpointsPlanner(store));
                  planners.add(p);
                  return p;
                },
                metrics))) {
      Message before = server.query("app.example.test.", Type.A, false);
      assertEquals(Rcode.NOERROR, before.getRcode());
      List<String> answer = TestServer.section(before, Section.ANSWER);
      assertEquals(2, answer.size(), answer.toString());

      planners.get(0).failing = true;
      Message during = server.query("app.example.test.", Type.A, false);
      assertEquals(Rcode.NOERROR, during.getRcode());
      assertEquals(answer, TestServer.section(during, Section.ANSWER));
      assertEquals(1, metrics.events("app.example.test. last-decision"), metrics.events.toString());
      // No AAAA answer was ever given: nothing to fall back to, so SERVFAIL.
      assertEquals(Rcode.SERVFAIL, server.query("app.example.test.", Type.AAAA, false).getRcode());
      assertEquals(1, metrics.events("app.example.test. planner-failed"));
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
