package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.netty.channel.epoll.Epoll;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.dns.server.InheritedSockets;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.NetworkInterface;
import java.net.SocketTimeoutException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The native UDP loop (dns.udpLoop: native, the default) over real sockets: it is the loop in use
 * where the library was built, answers bursts from many client sockets each with its own answer,
 * IPv6 clients, a datagram longer than it reads and garbage without stopping, stops with the
 * server, and {@code netty} turns it off. Without the library (no C compiler at build) the test is
 * skipped with the reason, except under CI=true, where that is a failure.
 */
class NativeUdpLoopTest {
  private static final String WWW = "www.example.test.";

  @BeforeAll
  static void requireLibrary() throws Exception {
    assumeTrue(Epoll.isAvailable(), "no epoll transport here: the native loop is Linux-only");
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      if (!server.node.server().nativeUdpLoop()) {
        String reason = "the native UDP loop did not start (see the log: built without cc?)";
        if ("true".equals(System.getenv("CI"))) {
          fail(reason + "; CI=true, so this is a failure, not a skip");
        }
        assumeTrue(false, reason);
      }
    }
  }

  @Test
  void burstsFromManySocketsGetEachTheirOwnAnswer() throws Exception {
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      int clients = 8;
      int perClient = 400;
      ExecutorService pool = Executors.newFixedThreadPool(clients);
      try {
        List<Future<Integer>> done = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
          int first = c * perClient;
          done.add(pool.submit(() -> burst(server.port(), first, perClient)));
        }
        int answered = 0;
        for (Future<Integer> f : done) {
          answered += f.get();
        }
        // Loopback drops nothing at this rate; every query of every socket is answered, each
        // with its own ID and question (a reply sent to the wrong slot's client would show).
        assertEquals(clients * perClient, answered);
      } finally {
        pool.shutdownNow();
      }
    }
  }

  /** Sends {@code n} queries at once from one socket, then reads the answers; how many matched. */
  private static int burst(int port, int firstId, int n) throws Exception {
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(TestServer.LOOPBACK, 0))) {
      s.setReceiveBufferSize(1 << 20);
      s.setSoTimeout(3000);
      InetSocketAddress to = new InetSocketAddress(TestServer.LOOPBACK, port);
      String[] names = {WWW, "mail.example.test.", "ns1.example.test."};
      for (int i = 0; i < n; i++) {
        Message q = Message.newQuery(Record.newRecord(Name.fromString(names[i % 3]), Type.A, 1));
        q.getHeader().setID((firstId + i) & 0xffff);
        byte[] wire = q.toWire();
        s.send(new DatagramPacket(wire, wire.length, to));
      }
      Set<Integer> seen = new HashSet<>();
      byte[] buf = new byte[2048];
      for (int i = 0; i < n; i++) {
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        s.receive(p);
        Message m = new Message(java.util.Arrays.copyOf(buf, p.getLength()));
        int id = m.getHeader().getID();
        int index = (id - firstId) & 0xffff;
        assertTrue(index < n, "an answer to a query of this socket");
        assertEquals(names[index % 3], m.getQuestion().getName().toString());
        assertEquals(Rcode.NOERROR, m.getRcode());
        assertFalse(m.getSection(Section.ANSWER).isEmpty());
        assertTrue(seen.add(id), "one answer per query");
      }
      return seen.size();
    }
  }

  @Test
  void ipv6ClientsAreAnswered() throws Exception {
    InetAddress v6 = InetAddress.getByName("::1");
    assumeTrue(
        NetworkInterface.getByInetAddress(v6) != null, "no ::1 on this machine: IPv6 is off");
    String yaml = TestZones.CONFIG.replace("listen: [127.0.0.1]", "listen: [127.0.0.1, \"::1\"]");
    try (TestServer server = TestServer.start(yaml)) {
      assertTrue(server.node.server().nativeUdpLoop());
      org.xbill.DNS.SimpleResolver r =
          new org.xbill.DNS.SimpleResolver(new InetSocketAddress(v6, server.port()));
      r.setTimeout(java.time.Duration.ofSeconds(3));
      Message m = r.send(Message.newQuery(Record.newRecord(Name.fromString(WWW), Type.AAAA, 1)));
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(
          List.of("www.example.test. 300 AAAA 2001:db8:0:0:0:0:0:80"),
          TestServer.section(m, Section.ANSWER));
      assertTrue(
          server.node.server().boundAddresses().stream()
              .anyMatch(a -> a.getAddress() instanceof Inet6Address));
    }
  }

  @Test
  void oversizedAndGarbageDatagramsDoNotStopTheLoop() throws Exception {
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      Message q = Message.newQuery(Record.newRecord(Name.fromString(WWW), Type.A, DClass.IN));
      byte[] query = q.toWire();
      // Longer than the 4096 bytes the loop reads: what it reads is a query followed by junk.
      byte[] big = new byte[9000];
      System.arraycopy(query, 0, big, 0, query.length);
      byte[] reply = server.udp(big, 1000);
      if (reply != null) {
        assertEquals(Rcode.FORMERR, new Message(reply).getRcode());
      }
      assertEquals(null, server.udp(new byte[] {1, 2, 3}, 300), "a 3-byte datagram: silence");
      byte[] empty = server.udp(new byte[0], 300);
      assertEquals(null, empty, "an empty datagram: silence");
      Message m = server.query(WWW, Type.A, false);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(2, m.getSection(Section.ANSWER).size());
    }
  }

  @Test
  void closingTheServerStopsTheLoopAndFreesThePort() throws Exception {
    int port;
    Set<Thread> before = loopThreads();
    Set<Thread> ours;
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      port = server.port();
      // Netty fires channelActive, which starts the loop, just after the bind completes.
      long started = System.nanoTime() + 5_000_000_000L;
      do {
        ours = loopThreads();
        ours.removeAll(before);
      } while (ours.isEmpty() && System.nanoTime() < started && sleep(10));
      assertEquals(1, ours.size(), "one loop thread for the one UDP socket");
      assertEquals(Rcode.NOERROR, server.query(WWW, Type.A, false).getRcode());
    }
    long deadline = System.nanoTime() + 5_000_000_000L;
    Thread loop = ours.iterator().next();
    loop.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000));
    assertFalse(loop.isAlive(), "the loop thread ended with the server");
    try (DatagramSocket s = new DatagramSocket(new InetSocketAddress(TestServer.LOOPBACK, port))) {
      s.setSoTimeout(200);
      // The port is free again, and nothing of the old server reads it.
      byte[] wire = Message.newQuery(Record.newRecord(Name.fromString(WWW), Type.A, 1)).toWire();
      try (DatagramSocket c = new DatagramSocket()) {
        c.setSoTimeout(300);
        c.send(new DatagramPacket(wire, wire.length, TestServer.LOOPBACK, port));
        DatagramPacket got = new DatagramPacket(new byte[512], 512);
        s.receive(got);
        assertEquals(wire.length, got.getLength());
        try {
          c.receive(new DatagramPacket(new byte[512], 512));
          fail("nothing answers on the closed server's port");
        } catch (SocketTimeoutException expected) {
          // none
        }
      }
    }
  }

  @Test
  void nettyTurnsTheNativeLoopOff() throws Exception {
    String yaml = TestZones.CONFIG.replace("threads: 1", "threads: 1\n  udpLoop: netty");
    try (TestServer server = TestServer.start(yaml)) {
      assertFalse(server.node.server().nativeUdpLoop());
      Message m = server.query(WWW, Type.A, false);
      assertEquals(Rcode.NOERROR, m.getRcode());
      assertEquals(2, m.getSection(Section.ANSWER).size());
    }
  }

  @Test
  void anUnknownLoopIsRejectedByName() {
    String yaml = TestZones.CONFIG.replace("threads: 1", "threads: 1\n  udpLoop: fast");
    ConfigException e =
        org.junit.jupiter.api.Assertions.assertThrows(
            ConfigException.class, () -> ConfigLoader.parse(yaml, "test.yaml", Path.of(".")));
    assertNotNull(e.getMessage());
    assertTrue(e.getMessage().contains("dns.udpLoop"), e.getMessage());
  }

  @Test
  void everyQueryOfABatchIsTimedOnce() throws Exception {
    try (PrometheusMetrics prometheus = new PrometheusMetrics();
        TestServer server = TestServer.start(TestZones.CONFIG, Path.of("."), prometheus.gslb())) {
      long began = System.nanoTime();
      int answered = burst(server.port(), 0, 300);
      double wall = (System.nanoTime() - began) / 1e9;
      assertEquals(300, answered);
      String text = prometheus.scrape();
      // Each answer is timed from the one before it in its batch: one loop thread's durations do
      // not overlap, so together they fit in the burst's wall time, and none is negative.
      double count = sample(text, "sluice_dns_request_duration_seconds_count{transport=\"udp\"}");
      double sum = sample(text, "sluice_dns_request_duration_seconds_sum{transport=\"udp\"}");
      double max = sample(text, "sluice_dns_request_duration_seconds_max{transport=\"udp\"}");
      assertEquals(300, count, text);
      assertTrue(sum > 0 && sum < wall, "sum " + sum + " s over a burst of " + wall + " s");
      assertTrue(max > 0 && max < wall, "max " + max + " s over a burst of " + wall + " s");
    }
  }

  private static double sample(String text, String series) {
    for (String line : text.split("\n")) {
      if (line.startsWith(series + " ")) {
        return Double.parseDouble(line.substring(series.length() + 1).trim());
      }
    }
    throw new AssertionError(series + " not in the scrape:\n" + text);
  }

  @Test
  void theLoopsSocketsAreOutOfNettysEpollSet() throws Exception {
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      Set<Integer> sockets = udpSockets(server.port());
      assertFalse(sockets.isEmpty(), "the server's UDP sockets are in /proc");
      // An epoll entry on the socket would cost the kernel a callback per datagram in and out.
      Set<Integer> watched = epollTargets();
      for (int fd : sockets) {
        assertFalse(watched.contains(fd), "fd " + fd + " is still in an epoll set " + watched);
      }
      assertEquals(Rcode.NOERROR, server.query(WWW, Type.A, false).getRcode());
    }
    // The same look finds them under Netty's loop, which reads them through epoll.
    String yaml = TestZones.CONFIG.replace("threads: 1", "threads: 1\n  udpLoop: netty");
    try (TestServer server = TestServer.start(yaml)) {
      Set<Integer> sockets = udpSockets(server.port());
      assertFalse(sockets.isEmpty());
      assertTrue(epollTargets().containsAll(sockets), sockets + " in " + epollTargets());
    }
  }

  @Test
  void theLoopWaitsInTheKernelUntilItsSocketIsHandedOver() throws Exception {
    try (TestServer server = TestServer.start(TestZones.CONFIG)) {
      assertEquals(Rcode.NOERROR, server.query(WWW, Type.A, false).getRcode());
      List<Integer> sockets = udpDescriptors(server);
      assertFalse(sockets.isEmpty(), "the server's UDP sockets");
      for (int fd : sockets) {
        assertFalse(nonBlocking(fd), "fd " + fd + " blocks: the loop waits inside recvmmsg");
      }
      // Another process may read a handed-over socket through Netty, which needs O_NONBLOCK.
      server.node.server().handOverSockets();
      for (int fd : sockets) {
        assertTrue(nonBlocking(fd), "fd " + fd + " is non-blocking once offered for a hand-over");
      }
      // This loop answers on, now waiting in poll: each pause outlasts the 20 ms its recvmmsg
      // waits at most, so the queries after the first find it there.
      for (int i = 0; i < 5; i++) {
        Thread.sleep(100);
        assertEquals(Rcode.NOERROR, server.query(WWW, Type.A, false).getRcode(), "query " + i);
      }
    }
    // Netty's loop reads the same configuration's sockets non-blocking, as it must.
    String yaml = TestZones.CONFIG.replace("threads: 1", "threads: 1\n  udpLoop: netty");
    try (TestServer server = TestServer.start(yaml)) {
      assertEquals(Rcode.NOERROR, server.query(WWW, Type.A, false).getRcode());
      List<Integer> sockets = udpDescriptors(server);
      assertFalse(sockets.isEmpty());
      for (int fd : sockets) {
        assertTrue(nonBlocking(fd), "fd " + fd + " under Netty's loop");
      }
    }
  }

  /**
   * The descriptors of the server's own UDP sockets; a search of /proc by port could also find a
   * client's socket that has the same port on another address.
   */
  private static List<Integer> udpDescriptors(TestServer server) {
    return server.node.server().listeningSockets().stream()
        .filter(s -> s.kind() == InheritedSockets.Kind.DNS_UDP)
        .map(InheritedSockets.Socket::fd)
        .toList();
  }

  /** Whether the open file of this process's descriptor {@code fd} has O_NONBLOCK (octal 04000). */
  private static boolean nonBlocking(int fd) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/self/fdinfo/" + fd))) {
      if (line.startsWith("flags:")) {
        return (Integer.parseInt(line.substring(6).trim(), 8) & 04000) != 0;
      }
    }
    throw new AssertionError("no flags in /proc/self/fdinfo/" + fd);
  }

  /** This process's descriptors of the UDP sockets bound to {@code port}. */
  private static Set<Integer> udpSockets(int port) throws Exception {
    Set<String> inodes = new HashSet<>();
    String local = String.format(":%04X", port);
    for (String table : List.of("/proc/net/udp", "/proc/net/udp6")) {
      for (String line : Files.readAllLines(Path.of(table))) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && f[1].endsWith(local)) {
          inodes.add(f[9]);
        }
      }
    }
    Set<Integer> fds = new HashSet<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
      for (Path fd : dir) {
        try {
          String target = Files.readSymbolicLink(fd).toString();
          if (target.startsWith("socket:[")
              && inodes.contains(target.substring(8, target.length() - 1))) {
            fds.add(Integer.parseInt(fd.getFileName().toString()));
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    }
    return fds;
  }

  /** The descriptors registered in any epoll instance of this process ("tfd:" in fdinfo). */
  private static Set<Integer> epollTargets() throws Exception {
    Set<Integer> out = new HashSet<>();
    try (DirectoryStream<Path> dir = Files.newDirectoryStream(Path.of("/proc/self/fdinfo"))) {
      for (Path info : dir) {
        try {
          for (String line : Files.readAllLines(info)) {
            if (line.startsWith("tfd:")) {
              out.add(Integer.parseInt(line.substring(4).trim().split("\\s+")[0]));
            }
          }
        } catch (IOException e) {
          // closed meanwhile
        }
      }
    }
    return out;
  }

  private static boolean sleep(long millis) throws InterruptedException {
    Thread.sleep(millis);
    return true;
  }

  private static Set<Thread> loopThreads() {
    Set<Thread> out = new HashSet<>();
    for (Thread t : Thread.getAllStackTraces().keySet()) {
      if (t.isAlive() && t.getName().startsWith("sluice-dns-udp")) {
        out.add(t);
      }
    }
    return out;
  }
}
