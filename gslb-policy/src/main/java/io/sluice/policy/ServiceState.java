package io.sluice.policy;

import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.PoolLoad;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.state.ServicePlan;
import io.sluice.core.state.Shift;
import io.sluice.core.state.Snapshot;
import io.sluice.policy.health.HealthyFilter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * One service in one snapshot: which endpoints are usable per family, the pool latencies and loads,
 * the effective weights and TTL, the cohort thresholds of the traffic plan, and the precomputed
 * {@link Outcome} of every (family, cohort, region). Built when a snapshot is first seen; the query
 * path only indexes into it.
 */
final class ServiceState {
  private final CompiledService svc;
  private final ServicePlan plan;
  private final long ttl;
  private final long[] usable = new long[2];
  // Pools with an endpoint of the family at all, and with one that is not drained (fail-open's).
  private final long[] withFamily = new long[2];
  private final long[] openable = new long[2];
  // [family][failOpen ? 1 : 0][pool] -> endpoint indexes into the pool's endpoint list
  private final int[][][][] endpointIndex = new int[2][2][][];
  private final EndpointTable[][] tables = new EndpointTable[2][2];
  private final double[] rtt;
  // [client region] -> per-pool RTT the latency step compares for clients of that region.
  private final double[][] rttByRegion;
  private final double[] load;
  private final int[] weights;
  private long staleLoads;
  // What this state read of its endpoints' health, in pool then endpoint order, and which of them
  // were drained: with the plan, the loads and (when a step read one) the latencies, everything
  // sameInputs compares.
  private final EndpointHealth[] seen;
  private final boolean[] drainedSeen;
  private boolean rttRead;
  final int[] thresholds;
  final Outcome[][][] outcomes;

  ServiceState(CompiledService svc, CompiledConfig cc, Snapshot s) {
    this.svc = svc;
    this.plan = s.traffic().plan(svc.fqdn());
    this.ttl = plan.ttlOverride() != null ? plan.ttlOverride() : svc.config().ttl();
    PoolTable t = svc.pools();
    int n = t.size();
    rtt = new double[n];
    load = new double[n];
    weights = new int[n];
    int endpoints = 0;
    for (int p = 0; p < n; p++) {
      endpoints += svc.endpointKeys()[p].length;
    }
    seen = new EndpointHealth[endpoints];
    drainedSeen = new boolean[endpoints];
    int k = 0;
    for (int p = 0; p < n; p++) {
      String name = t.names().get(p);
      weights[p] = plan.weights().getOrDefault(name, t.weights()[p]);
      load[p] = s.health().poolLoad(name);
      PoolLoad reported = s.health().poolLoads().get(name);
      if (reported != null && reported.stale()) {
        staleLoads |= 1L << p;
      }
      double best = Double.NaN;
      for (int e = 0; e < svc.endpointKeys()[p].length; e++) {
        String key = svc.endpointKeys()[p][e];
        EndpointHealth h = s.health().get(key);
        seen[k] = h;
        drainedSeen[k++] = HealthyFilter.drained(s, name, key);
        if (HealthyFilter.usable(s, name, key)
            && !h.stale()
            && !Double.isNaN(h.rttP50Millis())
            && !(h.rttP50Millis() >= best)) {
          best = h.rttP50Millis();
        }
      }
      rtt[p] = best;
    }
    rttByRegion = regionRtts(svc, cc, s);
    for (AddressFamily f : AddressFamily.values()) {
      int fi = f.ordinal();
      for (int open = 0; open < 2; open++) {
        int[][] idx = new int[n][];
        int[][] w = new int[n][];
        for (int p = 0; p < n; p++) {
          List<Integer> keep = new ArrayList<>();
          for (int e = 0; e < svc.endpointKeys()[p].length; e++) {
            byte[] a = svc.endpointAddresses()[p][e];
            boolean fits = a == null || a.length == f.length();
            String key = svc.endpointKeys()[p][e];
            if (fits && open == 1) {
              withFamily[fi] |= 1L << p;
            }
            if (fits
                && (open == 1
                    ? !HealthyFilter.drained(s, t.names().get(p), key)
                    : HealthyFilter.usable(s, t.names().get(p), key))) {
              keep.add(e);
            }
          }
          idx[p] = keep.stream().mapToInt(Integer::intValue).toArray();
          w[p] = new int[idx[p].length];
          for (int i = 0; i < idx[p].length; i++) {
            w[p][i] = svc.endpoints().get(p).get(idx[p][i]).weight();
          }
          if (idx[p].length > 0) {
            if (open == 0) {
              usable[fi] |= 1L << p;
            } else {
              openable[fi] |= 1L << p;
            }
          }
        }
        endpointIndex[fi][open] = idx;
        tables[fi][open] = new EndpointTable(w);
      }
    }
    TreeSet<Integer> th = new TreeSet<>();
    for (Shift sh : plan.shifts()) {
      th.add((int) Math.round(sh.percent() * 100));
    }
    if (svc.config().crossRegionLimit() != null) {
      th.add(svc.config().crossRegionLimit() * 100);
    }
    th.remove(0);
    th.remove(10_000);
    thresholds = th.stream().mapToInt(Integer::intValue).toArray();
    outcomes = derive(cc);
  }

  private Outcome[][][] derive(CompiledConfig cc) {
    int regions = cc.regions().size() + 1;
    int cohorts = thresholds.length + 1;
    Outcome[][][] out = new Outcome[2][cohorts][regions];
    for (int f = 0; f < 2; f++) {
      for (int c = 0; c < cohorts; c++) {
        int bucket = c == 0 ? 0 : thresholds[c - 1];
        ChainResult[] results = new ChainResult[regions];
        Map<ChainResult.Key, Answers> shared = new HashMap<>();
        Map<ChainResult.Key, Long> classes = new HashMap<>();
        for (int r = 0; r < regions; r++) {
          ChainContext ctx =
              new ChainContext(svc.pools(), cc.regions(), r, rttByRegion[r], load, false);
          results[r] = ChainEvaluator.evaluate(svc, this, f, bucket, ctx);
          rttRead |= ctx.rttRead();
          classes.merge(results[r].key(), 1L << r, (a, b) -> a | b);
          final int fam = f;
          final ChainContext cx = ctx;
          final ChainResult res = results[r];
          shared.computeIfAbsent(res.key(), k -> answers(fam, res, cx));
          rttRead |= cx.rttRead();
        }
        for (int r = 0; r < regions; r++) {
          ChainResult.Key key = results[r].key();
          out[f][c][r] =
              new Outcome(
                  shared.get(key), classes.get(key), results[r].events().toArray(new String[0]));
        }
      }
    }
    return out;
  }

  /**
   * Whether this state, derived for {@code cc} and an earlier snapshot, is exactly what {@code s}
   * would derive: the same plan, pool loads, drains and usable verdicts, and the same latencies
   * (and their staleness) when a step read any. The evaluation is a function of those alone, so a
   * state whose steps never read a latency does not depend on one. A health sweep that only
   * refreshes the latency figures and result counts then re-derives nothing for most services.
   */
  boolean sameInputs(CompiledConfig cc, Snapshot s) {
    if (!plan.equals(s.traffic().plan(svc.fqdn()))) {
      return false;
    }
    PoolTable t = svc.pools();
    List<String> regions = cc.regions().names();
    int k = 0;
    for (int p = 0; p < t.size(); p++) {
      String name = t.names().get(p);
      if (Double.doubleToLongBits(load[p]) != Double.doubleToLongBits(s.health().poolLoad(name))) {
        return false;
      }
      PoolLoad reported = s.health().poolLoads().get(name);
      if ((reported != null && reported.stale()) != ((staleLoads & (1L << p)) != 0)) {
        return false;
      }
      for (String key : svc.endpointKeys()[p]) {
        EndpointHealth h = s.health().get(key);
        EndpointHealth was = seen[k];
        if (HealthyFilter.drained(s, name, key) != drainedSeen[k++]) {
          return false;
        }
        if (h == was) {
          continue;
        }
        if (h.verdict().usable() != was.verdict().usable()) {
          return false;
        }
        // Staleness only hides a latency.
        if (rttRead && !sameLatencies(h, was, regions)) {
          return false;
        }
      }
    }
    return true;
  }

  private static boolean sameLatencies(EndpointHealth a, EndpointHealth b, List<String> regions) {
    if (a.stale() != b.stale()
        || Double.doubleToLongBits(a.rttP50Millis()) != Double.doubleToLongBits(b.rttP50Millis())) {
      return false;
    }
    for (String region : regions) {
      if (Double.doubleToLongBits(a.rttFrom(region))
          != Double.doubleToLongBits(b.rttFrom(region))) {
        return false;
      }
    }
    return true;
  }

  /** Builds the answers of a chain result (also used by explain, with a tracing context). */
  Answers answers(int family, ChainResult r, ChainContext ctx) {
    if (r.lastResort()) {
      return new Answers(
          this, family, r, Spread.fixed(new int[0], "last resort"), thresholds.length > 0);
    }
    if (r.pools() == 0) {
      // No pool has an address of the asked family: an empty answer (NODATA).
      return new Answers(this, family, r, Spread.fixed(new int[0], "no data"), false);
    }
    EndpointTable table = tables[family][r.failOpen() ? 1 : 0];
    Spread spread =
        svc.balancer() != null
            ? svc.balancer().spread(r.pools(), weights, table, svc.limit(), ctx)
            : io.sluice.policy.limit.LimitSpread.of(r.pools(), table, svc.limit());
    return new Answers(this, family, r, spread, spread.variants() > 1 || thresholds.length > 0);
  }

  /**
   * The expected percent of clients per pool, from the precomputed outcomes: every client region
   * counts equally ({@code regionSlots} of them), each cohort by its width in buckets, each variant
   * by the fraction of client hashes its spread sends there, and an answer holding several pools by
   * its records. A/IPv4 answers are counted, AAAA when the service has no IPv4 endpoint. Clients
   * that get the last resort or no data count for no pool. Off the query path (status). Averages
   * the client regions {@code fromRegion} (inclusive) to {@code toRegion} (exclusive).
   */
  Map<String, Double> expectedShares(int fromRegion, int toRegion) {
    int regionSlots = toRegion - fromRegion;
    int family = withFamily[0] != 0 || withFamily[1] == 0 ? 0 : 1;
    int n = svc.pools().size();
    double[] share = new double[n];
    for (int c = 0; c <= thresholds.length; c++) {
      int lo = c == 0 ? 0 : thresholds[c - 1];
      int hi = c == thresholds.length ? 10_000 : thresholds[c];
      double cohort = (hi - lo) / 10_000.0;
      for (int r = fromRegion; r < toRegion; r++) {
        Spread spread = outcomes[family][c][r].answers().spread;
        for (int v = 0; v < spread.variants(); v++) {
          int[] members = spread.members(v);
          double each = cohort * spread.share(v) / regionSlots / Math.max(1, members.length);
          for (int m : members) {
            share[m >>> 16] += each;
          }
        }
      }
    }
    Map<String, Double> out = new java.util.LinkedHashMap<>();
    for (int p = 0; p < n; p++) {
      out.put(svc.pools().names().get(p), Math.round(share[p] * 1000) / 10.0);
    }
    return out;
  }

  CompiledService service() {
    return svc;
  }

  ServicePlan plan() {
    return plan;
  }

  long ttl() {
    return ttl;
  }

  long usable(int family) {
    return usable[family];
  }

  /** The pools with at least one endpoint of {@code family}, whatever its health. */
  long withFamily(int family) {
    return withFamily[family];
  }

  /** The pools failing open may use: an endpoint of {@code family} that is not drained. */
  long openable(int family) {
    return openable[family];
  }

  /**
   * Per client region (the last index: clients without one), the pool RTTs of the latency step:
   * those measured from a vantage in the client's region when one has measured every pool this node
   * has, else this node's own.
   */
  private double[][] regionRtts(CompiledService svc, CompiledConfig cc, Snapshot s) {
    List<String> names = cc.regions().names();
    PoolTable t = svc.pools();
    int n = t.size();
    double[][] out = new double[names.size() + 1][];
    for (int r = 0; r < names.size(); r++) {
      String region = names.get(r);
      double[] from = new double[n];
      boolean complete = true;
      boolean any = false;
      for (int p = 0; p < n; p++) {
        double best = Double.NaN;
        for (String key : svc.endpointKeys()[p]) {
          EndpointHealth h = s.health().get(key);
          double v = h.rttFrom(region);
          if (!Double.isNaN(v)
              && !(v >= best)
              && !h.stale()
              && HealthyFilter.usable(s, t.names().get(p), key)) {
            best = v;
          }
        }
        from[p] = best;
        any |= !Double.isNaN(best);
        complete &= Double.isNaN(rtt[p]) || !Double.isNaN(best);
      }
      out[r] = any && complete ? from : rtt;
    }
    out[names.size()] = rtt;
    return out;
  }

  /** The pool RTTs the latency step compares for clients of region index {@code region}. */
  double[] rtt(int region) {
    return rttByRegion[Math.min(region, rttByRegion.length - 1)];
  }

  double[] load() {
    return load;
  }

  /** The pools whose reported load is stale and therefore ignored. */
  long staleLoads() {
    return staleLoads;
  }

  int endpointIndex(int family, boolean failOpen, int pool, int i) {
    return endpointIndex[family][failOpen ? 1 : 0][pool][i];
  }

  /** The pools named in {@code names} as a mask (names the service does not use are ignored). */
  long mask(List<String> names) {
    long m = 0;
    for (String n : names) {
      int p = svc.pools().names().indexOf(n);
      if (p >= 0) {
        m |= 1L << p;
      }
    }
    return m;
  }

  /** The cohort of a client bucket: how many thresholds are at or below it. */
  int cohort(int bucket) {
    int c = 0;
    while (c < thresholds.length && thresholds[c] <= bucket) {
      c++;
    }
    return c;
  }

  @Override
  public String toString() {
    return svc.fqdn() + Arrays.toString(thresholds);
  }
}
