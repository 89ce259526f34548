package io.sluice.core.divergence;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.ClusterConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.spi.ClusterMembers;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.SnapshotStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The in-node divergence check: every {@code cluster.divergence.interval}, on its own thread and
 * never on the query path, asks every live member for every service (A and AAAA) as {@code
 * cluster.divergence.subnets} client subnets and keeps the figures of the last run for the metrics;
 * the first differing subnets are logged. Interval and subnet count are read from the published
 * configuration at each run, so a reload changes them.
 */
public final class PeriodicDivergenceCheck implements AutoCloseable {
  private static final System.Logger LOG =
      System.getLogger(PeriodicDivergenceCheck.class.getName());
  // Off the query path but on the same CPUs: a few queries at a time are plenty between runs.
  private static final int CONCURRENCY = 4;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  // While the check is off (interval 0), how often to look whether a reload turned it on.
  private static final Duration IDLE_RECHECK = Duration.ofSeconds(60);
  private static final int LOGGED_FINDINGS = 5;
  private static final List<String> TYPES = List.of("A", "AAAA");

  private final SnapshotStore store;
  private final ClusterMembers members;
  // Networks only the GeoIP database maps to a region, from the configuration serving now.
  private final Supplier<Map<String, List<Cidr>>> geoIpSamples;
  private final DivergenceCheck check;
  private final Ticker ticker;
  private ScheduledExecutorService timer;

  /** The figures of the last completed run, swapped as a whole. */
  private volatile LastRun last = new LastRun(0, 0, 0, 0);

  /** What the last run found and when it finished; {@code checks} counts every completed run. */
  public record LastRun(long divergent, long unanswered, long checks, long finishedMillis) {}

  private PeriodicDivergenceCheck(
      SnapshotStore store,
      ClusterMembers members,
      Supplier<Map<String, List<Cidr>>> geoIpSamples,
      DnsAsker asker,
      Ticker ticker) {
    this.store = store;
    this.members = members;
    this.geoIpSamples = geoIpSamples;
    this.check = DivergenceCheck.over(asker, CONCURRENCY, TIMEOUT);
    this.ticker = ticker;
  }

  /**
   * A check of the services published in {@code store} against {@code members}, covering the
   * regions of the network map and the {@code geoIpSamples} networks; it runs only when {@link
   * #runOnce} is called.
   */
  public static PeriodicDivergenceCheck create(
      SnapshotStore store,
      ClusterMembers members,
      Supplier<Map<String, List<Cidr>>> geoIpSamples,
      DnsAsker asker,
      Ticker ticker) {
    return new PeriodicDivergenceCheck(store, members, geoIpSamples, asker, ticker);
  }

  /** As {@link #create}, and also running by itself, first one interval after now. */
  public static PeriodicDivergenceCheck start(
      SnapshotStore store,
      ClusterMembers members,
      Supplier<Map<String, List<Cidr>>> geoIpSamples,
      DnsAsker asker,
      Ticker ticker) {
    PeriodicDivergenceCheck c = create(store, members, geoIpSamples, asker, ticker);
    c.timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "divergence-check");
              t.setDaemon(true);
              return t;
            });
    c.scheduleNext();
    return c;
  }

  /** The figures of the last completed run. */
  public LastRun last() {
    return last;
  }

  /** Runs one check of every service now, on the caller's thread; returns its reports. */
  public synchronized List<DivergenceReport> runOnce() throws InterruptedException {
    SluiceConfig config = store.current().config();
    List<DivergenceCheck.Target> nodes = DivergenceCheck.Target.of(members.members());
    List<String> subnets =
        ClientSubnets.spread(
            divergence(config).subnets(), ClientSubnets.regions(config, geoIpSamples.get()));
    List<DivergenceReport> reports = new ArrayList<>();
    if (nodes.size() >= 2) {
      for (ZoneConfig z : config.zones()) {
        for (ServiceConfig svc : z.services()) {
          // A service may have ttl equal to shiftTtl.
          Set<Long> ttls = new HashSet<>(List.of(svc.ttl(), svc.traffic().shiftTtl()));
          for (String type : TYPES) {
            reports.add(check.run(nodes, svc.fqdn(z.origin()), type, subnets, ttls));
          }
        }
      }
    }
    long divergent = reports.stream().mapToLong(DivergenceReport::different).sum();
    long unanswered = reports.stream().mapToLong(DivergenceReport::unanswered).sum();
    last = new LastRun(divergent, unanswered, last.checks() + 1, ticker.currentTimeMillis());
    if (divergent > 0 || unanswered > 0) {
      log(reports, divergent, unanswered);
    }
    return reports;
  }

  private static void log(List<DivergenceReport> reports, long divergent, long unanswered) {
    List<String> first = new ArrayList<>();
    for (DivergenceReport r : reports) {
      for (DivergenceReport.SubnetResult f : r.findings()) {
        if (first.size() < LOGGED_FINDINGS) {
          StringBuilder b = new StringBuilder();
          b.append(r.service()).append(' ').append(r.type()).append(' ').append(f.subnet());
          f.answers()
              .forEach((node, a) -> b.append("; ").append(node).append(": ").append(a.text()));
          first.add(b.toString());
        }
      }
    }
    LOG.log(
        System.Logger.Level.WARNING,
        "divergence check: {0} answers differ between nodes, {1} unanswered; first: {2}",
        divergent,
        unanswered,
        String.join(" | ", first));
  }

  private static ClusterConfig.DivergenceConfig divergence(SluiceConfig config) {
    return config.cluster() == null
        ? new ClusterConfig.DivergenceConfig(null, null)
        : config.cluster().divergence();
  }

  private void scheduleNext() {
    Duration interval = divergence(store.current().config()).interval();
    boolean off = interval.isZero();
    timer.schedule(
        () -> {
          try {
            if (!off) {
              runOnce();
            }
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return;
          } catch (RuntimeException e) {
            LOG.log(System.Logger.Level.ERROR, "divergence check failed", e);
          }
          if (!timer.isShutdown()) {
            scheduleNext();
          }
        },
        (off ? IDLE_RECHECK : interval).toMillis(),
        TimeUnit.MILLISECONDS);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
