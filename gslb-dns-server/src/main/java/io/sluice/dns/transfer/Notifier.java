package io.sluice.dns.transfer;

import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Flags;
import org.xbill.DNS.Message;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * Sends NOTIFY (RFC 1996) over UDP to each zone's configured secondaries whenever a published
 * snapshot carries a new serial for it, and once at start. Each NOTIFY is retried (1, 2, 4, 8, 16
 * s) until the secondary answers it; a newer serial supersedes the retries of an older one. It runs
 * on its own thread, never on the query path.
 */
public final class Notifier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Notifier.class);

  /** Tries per NOTIFY, and the wait for an answer to each. */
  static final int ATTEMPTS = 5;

  static final int ANSWER_TIMEOUT_MILLIS = 1000;

  private final GslbMetrics metrics;
  private final ScheduledExecutorService executor;
  private final SecureRandom ids = new SecureRandom();

  /** The serial last announced per zone and target; touched on the executor only. */
  private final Map<String, Long> announced = new HashMap<>();

  private volatile TransferZones seen;

  private Notifier(GslbMetrics metrics) {
    this.metrics = metrics;
    this.executor =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "sluice-notify");
              t.setDaemon(true);
              return t;
            });
  }

  /** Starts notifying for {@code store}: now for its current zones, then on every change. */
  public static Notifier start(SnapshotStore store, GslbMetrics metrics) {
    Notifier n = new Notifier(metrics);
    store.addListener(n::published);
    n.published(store.current());
    return n;
  }

  private void published(Snapshot s) {
    TransferZones zones = s.artifacts().get(TransferZones.class);
    // Most snapshots only change health or traffic state: same artifact, nothing to do.
    if (zones == null || zones == seen) {
      return;
    }
    seen = zones;
    executor.execute(() -> changed(zones));
  }

  private void changed(TransferZones zones) {
    for (TransferZone z : zones.zones()) {
      if (z.refusal() != null) {
        continue;
      }
      for (InetSocketAddress target : z.notifyTargets()) {
        String k = z.origin() + " " + target;
        Long before = announced.put(k, z.serial());
        if (before == null || before != z.serial()) {
          send(z, target, z.serial(), 1);
        }
      }
    }
  }

  private void send(TransferZone z, InetSocketAddress target, long serial, int attempt) {
    String k = z.origin() + " " + target;
    Long current = announced.get(k);
    if (current == null || current != serial) {
      return; // superseded by a newer serial
    }
    String zone = z.origin().toString().toLowerCase(java.util.Locale.ROOT);
    boolean ok = false;
    try {
      ok = notifyOnce(z, target);
    } catch (IOException | RuntimeException e) {
      log.debug(
          "NOTIFY of {} serial {} to {} failed: {}", z.origin(), serial, target, e.toString());
    }
    if (ok) {
      log.info("NOTIFY of {} serial {} answered by {}", z.origin(), serial, target);
      metrics.notifySent(zone, true);
    } else if (attempt < ATTEMPTS) {
      executor.schedule(
          () -> send(z, target, serial, attempt + 1), 1L << (attempt - 1), TimeUnit.SECONDS);
    } else {
      log.warn(
          "NOTIFY of {} serial {} to {}: no answer after {} tries",
          z.origin(),
          serial,
          target,
          attempt);
      metrics.notifySent(zone, false);
    }
  }

  private boolean notifyOnce(TransferZone z, InetSocketAddress target) throws IOException {
    SOARecord soa = z.soa();
    int id = ids.nextInt(0x10000);
    Message m = new Message(id);
    m.getHeader().setOpcode(Opcode.NOTIFY);
    m.getHeader().setFlag(Flags.AA);
    m.addRecord(Record.newRecord(z.origin(), Type.SOA, DClass.IN), Section.QUESTION);
    m.addRecord(soa, Section.ANSWER);
    byte[] wire = m.toWire();
    if (z.key() != null) {
      wire =
          ZoneTransfers.append(wire, z.key().tsig().generate(m, wire, Rcode.NOERROR, null, true));
    }
    try (DatagramSocket socket = new DatagramSocket()) {
      socket.setSoTimeout(ANSWER_TIMEOUT_MILLIS);
      socket.send(new DatagramPacket(wire, wire.length, target));
      byte[] buf = new byte[4096];
      long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ANSWER_TIMEOUT_MILLIS);
      while (System.nanoTime() < deadline) {
        DatagramPacket p = new DatagramPacket(buf, buf.length);
        try {
          socket.receive(p);
        } catch (SocketTimeoutException e) {
          return false;
        }
        if (p.getLength() < 12) {
          continue;
        }
        Message r = new Message(java.util.Arrays.copyOf(buf, p.getLength()));
        if (r.getHeader().getID() == id
            && r.getHeader().getFlag(Flags.QR)
            && r.getHeader().getOpcode() == Opcode.NOTIFY) {
          return r.getRcode() == Rcode.NOERROR;
        }
      }
      return false;
    }
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
