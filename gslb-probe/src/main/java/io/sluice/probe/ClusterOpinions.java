package io.sluice.probe;

import io.sluice.core.health.Opinion;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.OpinionExchange;
import io.sluice.probe.canary.CanaryWatch;
import io.sluice.probe.debounce.Observation;
import io.sluice.probe.debounce.VantageTracker;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * This node's side of the cluster's opinion exchange: what it shares of the vantages it holds (its
 * own and the agents reporting to it) and when, what the other nodes share, whether the exchange is
 * reachable, and the per-region RTTs both give. On a single node ({@link OpinionExchange#NONE})
 * nothing is shared or heard. Touched only on the probe thread.
 */
final class ClusterOpinions {
  // A shared opinion's RTT is refreshed at most this often, and only when it moved materially:
  // by 20 % and 5 ms (loopback and LAN noise stays below that; region distances do not).
  static final long RTT_REFRESH_NANOS = TimeUnit.SECONDS.toNanos(30);
  static final double RTT_MATERIAL_FRACTION = 0.2;
  static final double RTT_MATERIAL_MILLIS = 5.0;

  private final OpinionExchange exchange;
  // Other nodes' opinions (and their agents'), by endpoint then vantage, as the exchange has them.
  private final Map<String, Map<String, Opinion>> remote = new HashMap<>();
  private OpinionExchange.Connection connection;
  private String localVantage = "";
  private String localRegion;
  private long writes;

  ClusterOpinions(OpinionExchange exchange) {
    this.exchange = exchange;
    // Until the exchange has been read, this node's evidence would be all it had: hold.
    this.connection = exchange.connection();
  }

  /** This node's vantage name and region (null when it declares none), from the configuration. */
  void configure(String vantage, String region) {
    this.localVantage = vantage;
    this.localRegion = region;
  }

  /** False on a single node. */
  boolean clustered() {
    return exchange != OpinionExchange.NONE;
  }

  /** False while the exchange is unreachable: verdicts must then be held as they are. */
  boolean connected() {
    return connection.connected();
  }

  /** Records a new connection state; returns whether it went from cut off to connected. */
  boolean connection(OpinionExchange.Connection c) {
    boolean was = connection.connected();
    connection = c;
    return c.connected() && !was;
  }

  /**
   * Shares the debounced opinions of the vantages this node holds for {@code st}: a new opinion or
   * probe-path state at once; while the cooldown holds a failure back, each further failed run up
   * to {@code cooldownBreak} (the others need the streak to end the cooldown too); the RTT at most
   * every {@link #RTT_REFRESH_NANOS} and only when it moved materially. A vantage whose results
   * went stale is withdrawn. Never raw results.
   */
  void share(EndpointState st, CanaryWatch canaries, long now, long staleNanos, long nowMillis) {
    if (!clustered()) {
      return;
    }
    for (Map.Entry<String, VantageTracker> e : st.trackers.entrySet()) {
      String vantage = e.getKey();
      VantageTracker t = e.getValue();
      EndpointState.Shared prev = st.shared.get(vantage);
      Verdict o = t.opinion();
      if (!t.fresh(now, staleNanos) || o == Verdict.UNKNOWN) {
        if (prev != null) {
          st.shared.remove(vantage);
          exchange.withdraw(st.key, vantage);
          writes++;
        }
        continue;
      }
      boolean local = vantage.equals(localVantage);
      boolean pathOk = canaries.pathOk(vantage);
      int streak = Math.min(t.streakFor(o), Math.max(1, st.health.cooldownBreak()));
      double rtt = local ? st.latency.percentile(0.5) : medianPassingRtt(t);
      boolean changed = prev == null || prev.opinion().opinion() != o;
      boolean moved =
          changed
              || prev.opinion().pathOk() != pathOk
              || (o == Verdict.DOWN
                  && st.gate.current() != Verdict.DOWN
                  && streak > prev.opinion().streak())
              || (now - prev.atNanos() >= RTT_REFRESH_NANOS
                  && materially(prev.opinion().rttMillis(), rtt));
      if (!moved) {
        continue;
      }
      long since = changed ? nowMillis : prev.opinion().sinceMillis();
      Opinion op =
          new Opinion(
              st.key,
              vantage,
              localVantage,
              o,
              streak,
              pathOk,
              local ? localRegion : null,
              rtt,
              since);
      st.shared.put(vantage, new EndpointState.Shared(op, now));
      exchange.publish(op);
      writes++;
    }
  }

  /** Withdraws everything this node shared of {@code st} (the endpoint or its checks are gone). */
  void withdrawAll(EndpointState st) {
    for (String v : st.shared.keySet()) {
      exchange.withdraw(st.key, v);
      writes++;
    }
    st.shared.clear();
  }

  /** True when an RTT moved enough to be worth a write: appeared, vanished, or by 20 % and 5 ms. */
  static boolean materially(double before, double after) {
    if (Double.isNaN(before) || Double.isNaN(after)) {
      return Double.isNaN(before) != Double.isNaN(after);
    }
    double d = Math.abs(after - before);
    return d >= RTT_MATERIAL_MILLIS && d >= RTT_MATERIAL_FRACTION * before;
  }

  /** The median RTT of the passing runs among a vantage's recent results; NaN when none passed. */
  private static double medianPassingRtt(VantageTracker t) {
    double[] rtts =
        t.recent().stream()
            .filter(Observation::ok)
            .mapToDouble(Observation::rttMillis)
            .filter(Double::isFinite)
            .sorted()
            .toArray();
    return rtts.length == 0 ? Double.NaN : rtts[rtts.length / 2];
  }

  /**
   * The other nodes' opinions of {@code st} that count here: a vantage this node holds with fresh
   * results of its own (an agent reporting to several nodes) is counted once, from here. Present in
   * the exchange means fresh: its node withdraws it when it goes stale, and it expires with that
   * node's lease when the node dies.
   */
  Map<String, Opinion> of(EndpointState st, long now, long staleNanos) {
    Map<String, Opinion> all = remote.get(st.key);
    if (all == null || all.isEmpty()) {
      return Map.of();
    }
    Map<String, Opinion> out = new LinkedHashMap<>();
    for (Opinion o : all.values()) {
      VantageTracker own = st.trackers.get(o.vantage());
      if (own == null || !own.fresh(now, staleNanos)) {
        out.put(o.vantage(), o);
      }
    }
    return out;
  }

  /** Every opinion the other nodes share now (at start and after a reconnect). */
  void replaced(Collection<Opinion> all) {
    remote.clear();
    for (Opinion o : all) {
      changed(o);
    }
  }

  /** Keeps an opinion another node shared; false for this node's own, echoed back. */
  boolean changed(Opinion o) {
    if (o.via().equals(localVantage) || o.vantage().equals(localVantage)) {
      return false;
    }
    remote.computeIfAbsent(o.endpoint(), k -> new HashMap<>()).put(o.vantage(), o);
    return true;
  }

  /**
   * An opinion was withdrawn or expired; {@code st} is its endpoint's state, or null. Returns
   * whether the endpoint must be evaluated again. When it was one this node shared (another node
   * that also hears the same agent withdrew it), it is forgotten, so it is shared again.
   */
  boolean removed(EndpointState st, String endpoint, String vantage) {
    boolean own = st != null && st.shared.remove(vantage) != null;
    Map<String, Opinion> of = remote.get(endpoint);
    boolean other = of != null && of.remove(vantage) != null;
    if (of != null && of.isEmpty()) {
      remote.remove(endpoint);
    }
    return own || other;
  }

  /**
   * Per region, the lowest median RTT measured by a vantage declared in it whose opinion counts and
   * is not down (this node's, with {@code cluster.region}, and the other nodes'); empty on a single
   * node.
   */
  Map<String, Double> regionRtt(EndpointState st, CanaryWatch canaries, long now, long staleNanos) {
    if (!clustered()) {
      return Map.of();
    }
    Map<String, Double> out = new TreeMap<>();
    VantageTracker own = st.trackers.get(localVantage);
    double ownRtt = st.latency.percentile(0.5);
    if (localRegion != null
        && own != null
        && own.fresh(now, staleNanos)
        && own.opinion() != Verdict.DOWN
        && canaries.pathOk(localVantage)
        && Double.isFinite(ownRtt)) {
      out.put(localRegion, ownRtt);
    }
    for (Opinion o : of(st, now, staleNanos).values()) {
      if (o.region() != null
          && o.pathOk()
          && o.opinion() != Verdict.DOWN
          && Double.isFinite(o.rttMillis())) {
        out.merge(o.region(), o.rttMillis(), Math::min);
      }
    }
    return out;
  }

  /** The vantages heard through the exchange, each with its most recent opinion (for status). */
  Collection<Opinion> heard() {
    Map<String, Opinion> byVantage = new TreeMap<>();
    for (Map<String, Opinion> of : remote.values()) {
      for (Opinion o : of.values()) {
        byVantage.merge(o.vantage(), o, (a, b) -> a.sinceMillis() >= b.sinceMillis() ? a : b);
      }
    }
    return byVantage.values();
  }

  /** What the probe status shows of the exchange. */
  ProbeStatus.Exchange status() {
    if (!clustered()) {
      return ProbeStatus.Exchange.SINGLE;
    }
    OpinionExchange.Connection c = connection;
    String note =
        c.connected()
            ? "sharing opinions with the cluster; " + writes + " opinion changes shared so far"
            : "cut off from the cluster ("
                + c.reason()
                + "): every verdict is held as it is until the connection is back";
    return new ProbeStatus.Exchange(true, c.connected(), c.sinceMillis(), note);
  }
}
