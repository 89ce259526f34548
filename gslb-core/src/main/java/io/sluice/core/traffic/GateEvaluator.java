package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.GateConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.Verdict;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Evaluates a step's gates over the pools that receive traffic: each has an endpoint {@code up},
 * the worst pool's probe error rate over the results gathered since the step began (its {@code
 * epoch}) is within bounds, the worst p99 latency among their endpoints is within bounds, and the
 * external metric (if any) is at most its threshold. A target with nothing up and an external
 * metric above its threshold fail at once. Until every target pool has {@code minResults} results
 * since the epoch began the result is {@link GateResult.Status#WAITING}: the results of an outage
 * before the step must not fail it, and no evidence must not pass it. Every measured value is
 * reported.
 */
final class GateEvaluator {
  private final ExternalMetric external;

  /** Result counts per endpoint when each epoch was first evaluated. */
  private final Map<String, Map<String, long[]>> baselines = new ConcurrentHashMap<>();

  GateEvaluator(ExternalMetric external) {
    this.external = external;
  }

  /** Forgets the baselines of epochs that are over (steps passed, ramps ended). */
  void retain(Set<String> epochs) {
    baselines.keySet().retainAll(epochs);
  }

  /**
   * Starts counting for {@code epoch} (if not yet) from the results in {@code health}: called as
   * soon as a step begins, so its evidence is everything after that moment.
   */
  void begin(SluiceConfig config, HealthView health, List<String> targets, String epoch) {
    Map<String, long[]> base = baselines.computeIfAbsent(epoch, e -> new ConcurrentHashMap<>());
    for (String pool : targets) {
      PoolConfig pc = config.pools().get(pool);
      if (pc != null) {
        for (EndpointConfig e : pc.endpoints()) {
          String key = PoolConfig.endpointKey(pool, e);
          EndpointHealth h = health.get(key);
          base.computeIfAbsent(key, k -> new long[] {h.results(), h.failures()});
        }
      }
    }
  }

  GateResult evaluate(
      SluiceConfig config, HealthView health, List<String> targets, GateConfig g, String epoch) {
    Map<String, long[]> base = baselines.computeIfAbsent(epoch, e -> new ConcurrentHashMap<>());
    Map<String, Object> measured = new LinkedHashMap<>();
    StringBuilder failure = new StringBuilder();
    double worstError = 0;
    double worstP99 = Double.NaN;
    Map<String, Object> upByPool = new LinkedHashMap<>();
    Map<String, Object> resultsByPool = new LinkedHashMap<>();
    boolean enough = true;
    for (String pool : targets) {
      PoolConfig pc = config.pools().get(pool);
      int up = 0;
      int total = pc == null ? 0 : pc.endpoints().size();
      long results = 0;
      long failures = 0;
      if (pc != null) {
        for (EndpointConfig e : pc.endpoints()) {
          String key = PoolConfig.endpointKey(pool, e);
          EndpointHealth h = health.get(key);
          if (h.verdict() == Verdict.UP) {
            up++;
          }
          long[] b = base.computeIfAbsent(key, k -> new long[] {h.results(), h.failures()});
          if (h.results() < b[0]) {
            // The endpoint's checks restarted (a reload): count from its new beginning.
            b[0] = 0;
            b[1] = 0;
          }
          results += h.results() - b[0];
          failures += Math.max(0, h.failures() - b[1]);
          if (h.verdict() != Verdict.UNKNOWN && !Double.isNaN(h.rttP99Millis())) {
            worstP99 =
                Double.isNaN(worstP99) ? h.rttP99Millis() : Math.max(worstP99, h.rttP99Millis());
          }
        }
      }
      upByPool.put(pool, up + "/" + total);
      resultsByPool.put(pool, results);
      if (results < g.minResults()) {
        enough = false;
      } else {
        worstError = Math.max(worstError, (double) failures / results);
      }
      if (g.requireUp() && up == 0) {
        fail(failure, "pool " + pool + " has no endpoint up");
      }
    }
    measured.put("upEndpoints", upByPool);
    measured.put("resultsSinceStep", resultsByPool);
    measured.put("minResults", g.minResults());
    if (g.external() != null) {
      measured.put("externalQuery", g.external().query());
      measured.put("externalMax", g.external().max());
      try {
        double v = external.read(g.external());
        measured.put("external", v);
        if (Double.isNaN(v) || v > g.external().max()) {
          fail(failure, "external metric " + v + " above " + g.external().max());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        fail(failure, "external metric interrupted");
      } catch (Exception e) {
        measured.put("externalError", String.valueOf(e.getMessage()));
        fail(failure, "external metric unreadable: " + e.getMessage());
      }
    }
    if (failure.length() > 0) {
      // Nothing up, or the external metric (which carries its own time window) failing, fails at
      // once, whatever else was measured.
      return new GateResult(GateResult.Status.FAILED, measured, failure.toString());
    }
    if (!enough) {
      return new GateResult(GateResult.Status.WAITING, measured, null);
    }
    measured.put("errorRate", worstError);
    measured.put("maxErrorRate", g.maxErrorRate());
    if (worstError > g.maxErrorRate()) {
      fail(failure, "error rate " + worstError + " above " + g.maxErrorRate());
    }
    if (g.maxP99Millis() != null) {
      if (!Double.isNaN(worstP99)) {
        measured.put("p99Millis", worstP99);
      }
      measured.put("maxP99Millis", g.maxP99Millis());
      if (!Double.isNaN(worstP99) && worstP99 > g.maxP99Millis()) {
        fail(failure, "p99 " + worstP99 + " ms above " + g.maxP99Millis() + " ms");
      }
    }
    return failure.length() == 0
        ? new GateResult(GateResult.Status.PASSED, measured, null)
        : new GateResult(GateResult.Status.FAILED, measured, failure.toString());
  }

  /** The epoch of a ramp's current step: its evidence starts when the step began. */
  static String epoch(Ramp r) {
    return r.id() + "@" + r.index() + "@" + r.stepSinceMillis();
  }

  /** The epoch of a proposal waiting for confirmation: evidence since it was proposed. */
  static String epoch(Pending p) {
    return "pending:" + p.proposal().id() + "@" + p.sinceMillis();
  }

  private static void fail(StringBuilder sb, String why) {
    if (sb.length() > 0) {
      sb.append("; ");
    }
    sb.append(why);
  }
}
