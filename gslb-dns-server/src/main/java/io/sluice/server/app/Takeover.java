package io.sluice.server.app;

import io.netty.channel.EventLoopGroup;
import io.sluice.dns.server.InheritedSockets;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * The taking-over side of a zero-downtime restart ({@link Handover} describes the steps): receives
 * the running node's listening sockets, asks it to release the state directory, and, once this
 * process answers, tells it to stop reading them. Closing before {@link #complete()} makes the
 * running node take its state back.
 */
final class Takeover implements AutoCloseable {
  private final HandoverLink link;
  private final InheritedSockets sockets;

  private Takeover(HandoverLink link, InheritedSockets sockets) {
    this.link = link;
    this.sockets = sockets;
  }

  /** Connects to the node running on {@code stateDir} and receives its listening sockets. */
  static Takeover begin(EventLoopGroup loop, Path stateDir)
      throws IOException, InterruptedException {
    Path socket = Handover.socket(stateDir);
    if (!Files.exists(socket)) {
      throw new IOException(
          "no running node to take over: "
              + socket
              + " does not exist (start without --takeover, or check --state-dir)");
    }
    HandoverLink link = HandoverLink.connect(loop, socket);
    try {
      link.send("HELLO " + Handover.VERSION);
      String head = link.readLine(Handover.STEP);
      if (!head.startsWith("LISTENERS ")) {
        throw new IOException("the running node refused the takeover: " + head);
      }
      int n = Integer.parseInt(head.substring("LISTENERS ".length()));
      List<String[]> described = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        described.add(link.readLine(Handover.STEP).split(" "));
      }
      List<Integer> fds = link.requestDescriptors("SEND", n, Handover.STEP);
      List<InheritedSockets.Socket> received = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        String[] d = described.get(i);
        received.add(
            new InheritedSockets.Socket(
                InheritedSockets.Kind.of(d[0]),
                new InetSocketAddress(InetAddress.getByName(d[1]), Integer.parseInt(d[2])),
                fds.get(i)));
      }
      return new Takeover(link, new InheritedSockets(received));
    } catch (IOException | RuntimeException e) {
      link.close();
      throw e;
    }
  }

  /** The running node's listening sockets, now open in this process too. */
  InheritedSockets sockets() {
    return sockets;
  }

  /** Asks the running node to release the state directory and waits until it has. */
  void releaseState() throws IOException {
    link.send("RELEASE");
    String reply = link.readLine(Handover.START);
    if (!reply.equals("RELEASED")) {
      throw new IOException("the running node did not release its state: " + reply);
    }
  }

  /**
   * Tells the running node this process answers, adopts the TCP connections it hands over with
   * {@code adopt}, and waits until it stopped reading.
   */
  void complete(Consumer<List<Integer>> adopt) throws IOException {
    link.send("READY");
    String head = link.readLine(Handover.STEP);
    if (!head.startsWith("CONNECTIONS ")) {
      throw new IOException("the running node did not hand over its connections: " + head);
    }
    int n = Integer.parseInt(head.substring("CONNECTIONS ".length()));
    adopt.accept(link.requestDescriptors("SEND", n, Handover.STEP));
    link.send("ADOPTED");
    String reply = link.readLine(Handover.STEP);
    if (!reply.equals("DONE")) {
      throw new IOException("the running node did not stop: " + reply);
    }
  }

  @Override
  public void close() {
    link.close();
  }
}
