package io.sluice.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Loopback ports for a process a test starts later (a Sluice node, etcd, Knot), chosen below the
 * kernel's ephemeral range.
 *
 * <p>A port taken with {@code new ServerSocket(0)} comes from the ephemeral range, the same range
 * the kernel hands out as the local port of every outgoing connection. Between closing the probe
 * socket and the child binding it, a client connection (a node's gRPC channel to etcd, an HTTP
 * client) can take that port, and the child fails with "Address already in use" — the more nodes
 * and connections a test runs, the likelier. Ports below the ephemeral range are never handed out
 * that way, so only another listener can take them, and each one is checked free for both TCP and
 * UDP before it is returned. Each JVM starts at its own offset so that two test JVMs do not walk
 * the same sequence.
 */
public final class LoopbackPorts {
  private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
  private static final int LOW = 20_000;
  private static final int HIGH = ephemeralLow() - 1;
  private static final AtomicInteger NEXT =
      new AtomicInteger(LOW + (int) (ProcessHandle.current().pid() * 97 % Math.max(1, HIGH - LOW)));

  // Never the same port twice in one JVM: the kernel may hand out a just-closed port again.
  private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();

  private LoopbackPorts() {}

  /** A loopback port free for both TCP and UDP right now, outside the ephemeral range. */
  public static int reserve() throws IOException {
    if (HIGH <= LOW) {
      return ephemeralFallback();
    }
    int span = HIGH - LOW + 1;
    for (int i = 0; i < 500; i++) {
      int port = LOW + Math.floorMod(NEXT.getAndIncrement() - LOW, span);
      if (free(port) && GIVEN.add(port)) {
        return port;
      }
    }
    throw new IOException("no loopback port free for TCP and UDP in " + LOW + "-" + HIGH);
  }

  private static boolean free(int port) {
    try (ServerSocket t = new ServerSocket()) {
      t.setReuseAddress(false);
      t.bind(new InetSocketAddress(LOOPBACK, port), 1);
      try (DatagramSocket u = new DatagramSocket(new InetSocketAddress(LOOPBACK, port))) {
        return true;
      }
    } catch (IOException taken) {
      return false;
    }
  }

  /** Where the kernel leaves no room below its ephemeral range, take a port from it. */
  private static int ephemeralFallback() throws IOException {
    for (int i = 0; i < 50; i++) {
      int port;
      try (ServerSocket s = new ServerSocket(0, 1, LOOPBACK)) {
        port = s.getLocalPort();
      }
      if (free(port) && GIVEN.add(port)) {
        return port;
      }
    }
    throw new IOException("no loopback port free for TCP and UDP");
  }

  private static int ephemeralLow() {
    try {
      // Not Files.readString: procfs reports a size of 0, and Java 17 then returns only the first
      // character ("3" of "32768 60999"); a line reader reads to the end of the line.
      String range;
      try (BufferedReader r =
          Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
        range = String.valueOf(r.readLine()).trim();
      }
      return Integer.parseInt(range.split("\\s+")[0]);
    } catch (IOException | RuntimeException unreadable) {
      // Linux's default range starts here.
      return 32_768;
    }
  }
}
