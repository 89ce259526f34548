package io.sluice.server.app;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.sluice.dns.server.InheritedSockets;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running node's side of a zero-downtime restart: the handover socket ({@value #FILE} in the
 * state directory) on which a process started with {@code --takeover} asks for the listening
 * sockets and the state directory. The order, one line each way per step:
 *
 * <ol>
 *   <li>{@code HELLO 1} → {@code LISTENERS n} and one line per socket ({@code udp ADDR PORT});
 *   <li>{@code SEND} → the n descriptors (SCM_RIGHTS); this node keeps reading them meanwhile;
 *   <li>{@code RELEASE} → this node stops the admin API, flushes and closes the state directory
 *       (lock, journal, audit log, configuration history), probes and cluster membership, then
 *       {@code RELEASED}; it keeps answering DNS from the state it had;
 *   <li>{@code READY} (the new process answered its self-check) → this node stops reading the
 *       listening sockets and pauses its TCP connections that are between two queries, then {@code
 *       CONNECTIONS n};
 *   <li>{@code SEND} → their n descriptors; {@code ADOPTED} (the new process serves them) → this
 *       node closes its copies (the clients see nothing), closes this socket, sends {@code DONE},
 *       serves its remaining connections to the end and exits.
 * </ol>
 *
 * When the other process goes away between {@code RELEASED} and {@code READY}, this node takes its
 * state back ({@link Party#resume()}) and serves on.
 */
final class Handover implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Handover.class);

  /** The handover socket's file name in the state directory. */
  static final String FILE = "handover.sock";

  /** Protocol version in HELLO. */
  static final int VERSION = 1;

  /**
   * How long each step may wait for the other process; the last one covers the new process's whole
   * start (state restore, zone compile, self-check).
   */
  static final Duration STEP = Duration.ofSeconds(30);

  static final Duration START = Duration.ofMinutes(5);

  /** What the running node does at each step. */
  interface Party {
    /** The listening sockets, readied for the new process and to be handed over to it. */
    List<InheritedSockets.Socket> handOverSockets();

    /** Releases the state directory, admin port and cluster membership; answers go on. */
    void releaseState();

    /** Stops reading the listening sockets. */
    void stopListening();

    /** Pauses the TCP connections between two queries and returns their descriptors. */
    List<Integer> pauseConnections();

    /**
     * Closes this process's copies of the paused connections when {@code handedOver} (else serves
     * them on), then drains the other connections and stops, in the background.
     */
    void connectionsHandedOver(boolean handedOver);

    /** Takes the released state back: the process taking over failed. */
    void resume();
  }

  private final Channel server;
  private final Party party;
  private final AtomicBoolean busy = new AtomicBoolean();

  private Handover(Channel server, Party party) {
    this.server = server;
    this.party = party;
  }

  /** The handover socket of the state directory {@code stateDir}. */
  static Path socket(Path stateDir) {
    return stateDir.toAbsolutePath().resolve(FILE);
  }

  /** Listens on the handover socket of {@code stateDir} for {@code party}. */
  static Handover listen(EventLoopGroup loop, Path stateDir, Party party)
      throws IOException, InterruptedException {
    Handover[] self = new Handover[1];
    Channel ch = HandoverLink.listen(loop, socket(stateDir), link -> self[0].session(link));
    self[0] = new Handover(ch, party);
    log.info("zero-downtime restart: 'sluice run --takeover' hands over via {}", socket(stateDir));
    return self[0];
  }

  private void session(HandoverLink link) {
    if (!busy.compareAndSet(false, true)) {
      try (link) {
        link.send("ERROR another takeover is in progress");
      } catch (IOException e) {
        log.debug("refusing a second takeover: {}", e.toString());
      }
      return;
    }
    boolean released = false;
    boolean done = false;
    try (link) {
      String hello = link.readLine(STEP);
      if (!hello.equals("HELLO " + VERSION)) {
        link.send("ERROR expected 'HELLO " + VERSION + "'");
        return;
      }
      List<InheritedSockets.Socket> sockets = party.handOverSockets();
      link.send("LISTENERS " + sockets.size());
      for (InheritedSockets.Socket s : sockets) {
        link.send(
            s.kind().token()
                + " "
                + s.address().getAddress().getHostAddress()
                + " "
                + s.address().getPort());
      }
      expect(link, "SEND", STEP);
      link.sendDescriptors(sockets.stream().map(InheritedSockets.Socket::fd).toList());
      expect(link, "RELEASE", STEP);
      log.info("handing over to a new process: releasing the state directory");
      party.releaseState();
      released = true;
      link.send("RELEASED");
      expect(link, "READY", START);
      log.info("the new process answers: stopping to read the listening sockets");
      party.stopListening();
      // Connections between two queries move too, with what their clients sent meanwhile.
      List<Integer> connections = party.pauseConnections();
      boolean adopted = false;
      try {
        link.send("CONNECTIONS " + connections.size());
        expect(link, "SEND", STEP);
        link.sendDescriptors(connections);
        expect(link, "ADOPTED", STEP);
        adopted = true;
      } finally {
        party.connectionsHandedOver(adopted);
      }
      // Closing deletes the socket file: before DONE, so the new process's own file stays.
      server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
      done = true;
      link.send("DONE");
    } catch (IOException | RuntimeException e) {
      log.warn("takeover failed: {}", e.getMessage());
    } finally {
      busy.set(false);
      if (released && !done) {
        log.warn("the process taking over failed after this node released its state: resuming");
        party.resume();
      }
    }
  }

  private static void expect(HandoverLink link, String word, Duration timeout) throws IOException {
    String line = link.readLine(timeout);
    if (!line.equals(word)) {
      throw new IOException("expected '" + word + "' on the handover socket, got '" + line + "'");
    }
  }

  @Override
  public void close() {
    server.close().awaitUninterruptibly(2, TimeUnit.SECONDS);
  }
}
