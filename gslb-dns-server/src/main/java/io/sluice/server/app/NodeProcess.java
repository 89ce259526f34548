package io.sluice.server.app;

import io.netty.channel.Channel;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.dns.server.DnsServer;
import io.sluice.dns.server.InheritedSockets;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node this process serves, across zero-downtime restarts: started fresh or by taking over the
 * listening sockets and state directory of the node running on the same state directory ({@link
 * Takeover}); hands itself over to the next process on request ({@link Handover}), then drains its
 * open connections and stops; takes its state back when that process fails midway.
 */
final class NodeProcess implements Handover.Party, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(NodeProcess.class);

  /** Longest wait for open TCP and HTTPS connections after handing over. */
  static final Duration DRAIN = Duration.ofSeconds(30);

  private static final long DRAIN_POLL_MILLIS = 50;

  private final SluiceConfig config;
  private final Path file;
  private final CliOverrides overrides;
  private final Path stateDir;
  // Null without the native transport: no handover there.
  private final EventLoopGroup loop;
  private final CountDownLatch stopped = new CountDownLatch(1);
  private volatile SluiceRuntime runtime;
  private volatile Handover handover;
  // Set while this process takes its own state back after a failed takeover.
  private volatile boolean resuming;
  // The TCP connections paused for the handover in progress.
  private List<Channel> paused = List.of();

  private NodeProcess(SluiceConfig config, Path file, CliOverrides overrides) {
    this.config = config;
    this.file = file;
    this.overrides = overrides;
    this.stateDir = config.stateDirectory();
    this.loop = Epoll.isAvailable() ? HandoverLink.loop() : null;
  }

  /**
   * Starts the node for {@code config} (read from {@code file}); with {@code takeover}, takes over
   * from the node running on the same state directory, which keeps serving if this fails.
   */
  static NodeProcess start(SluiceConfig config, Path file, CliOverrides overrides, boolean takeover)
      throws ConfigException, IOException, InterruptedException {
    NodeProcess p = new NodeProcess(config, file, overrides);
    try {
      if (takeover) {
        if (p.loop == null) {
          throw new IOException("--takeover needs Linux (the epoll transport)");
        }
        p.runtime = p.takeOver();
      } else {
        p.runtime = SluiceRuntime.start(config, file, overrides);
      }
      p.listen();
      return p;
    } catch (ConfigException | IOException | InterruptedException | RuntimeException e) {
      p.close();
      throw e;
    }
  }

  /**
   * Takes over from the node serving on the state directory: its sockets first, then its state,
   * then the self-check; on any failure everything started here is closed (state lock first) and
   * closing the link makes that node take its state back.
   */
  private SluiceRuntime takeOver() throws ConfigException, IOException, InterruptedException {
    Takeover takeover = Takeover.begin(loop, stateDir);
    SluiceRuntime started = null;
    try (takeover) {
      InheritedSockets sockets = takeover.sockets();
      try {
        takeover.releaseState();
        started = SluiceRuntime.start(config, file, overrides, sockets);
        SelfCheck.run(started.node().server(), started.node().store().current().config().zones());
        // Only now does this process read the shared sockets: a failure before took no query.
        started.node().startReading();
        SluiceRuntime ready = started;
        takeover.complete(fds -> ready.node().server().adoptConnections(fds));
        log.info("took over: the previous node stopped reading the listening sockets");
        return started;
      } catch (ConfigException | IOException | InterruptedException | RuntimeException e) {
        if (started != null) {
          started.close();
        }
        throw e;
      } finally {
        sockets.closeUnclaimed();
      }
    }
  }

  /**
   * Opens the handover socket; when it cannot be (a state directory path too long for a Unix
   * socket, a read-only directory), the node serves without it and says why.
   */
  private void listen() throws InterruptedException {
    if (loop == null) {
      return;
    }
    try {
      handover = Handover.listen(loop, stateDir, this);
    } catch (InterruptedException e) {
      throw e;
    } catch (Exception e) {
      // Netty rethrows a failed bind unchecked; serving matters more than a later takeover.
      log.warn(
          "zero-downtime restart unavailable: cannot listen on {}: {}",
          Handover.socket(stateDir),
          e.toString());
    }
  }

  /** The node serving now. */
  SluiceRuntime runtime() {
    return runtime;
  }

  /** Waits until this process has handed over and drained, or was stopped. */
  void awaitStopped() throws InterruptedException {
    stopped.await();
  }

  @Override
  public List<InheritedSockets.Socket> handOverSockets() {
    return runtime.node().handOverSockets();
  }

  @Override
  public void releaseState() {
    runtime.releaseState();
  }

  @Override
  public void stopListening() {
    runtime.node().stopListening();
  }

  @Override
  public List<Integer> pauseConnections() {
    try {
      paused = runtime.node().pauseIdleConnections();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      paused = List.of();
    }
    return DnsServer.descriptors(paused);
  }

  @Override
  public void connectionsHandedOver(boolean handedOver) {
    DnsServer.endPaused(paused, handedOver);
    paused = List.of();
    SluiceRuntime old = runtime;
    // Decided now: a resume's drain must not stop the process its new node serves in.
    boolean exitAfter = !resuming;
    Thread drain =
        new Thread(
            () -> {
              long deadline = System.nanoTime() + DRAIN.toNanos();
              while (old.node().openConnections() > 0 && System.nanoTime() < deadline) {
                try {
                  TimeUnit.MILLISECONDS.sleep(DRAIN_POLL_MILLIS);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                  break;
                }
              }
              int left = old.node().openConnections();
              log.info("handed over; {} open connection(s) left after draining, stopping", left);
              old.close();
              if (exitAfter) {
                stopped.countDown();
              }
            },
            "sluice-drain");
    drain.setDaemon(false);
    drain.start();
  }

  @Override
  public void resume() {
    resuming = true;
    Thread t =
        new Thread(
            () -> {
              try {
                // Through the same handover as a new process: this process's own listening
                // sockets come back as second descriptors, the state as a fresh start.
                runtime = takeOver();
                listen();
                log.info("resumed: serving with the state directory again");
              } catch (ConfigException | IOException | RuntimeException e) {
                log.error(
                    "cannot take the state back ({}): answering from the last state, without"
                        + " the admin API, probes and changes; restart this node",
                    e.getMessage());
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              } finally {
                resuming = false;
              }
            },
            "sluice-resume");
    t.start();
  }

  @Override
  public void close() {
    Handover h = handover;
    if (h != null) {
      h.close();
    }
    SluiceRuntime r = runtime;
    if (r != null) {
      r.close();
    }
    if (loop != null) {
      loop.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly(2, TimeUnit.SECONDS);
    }
    stopped.countDown();
  }
}
