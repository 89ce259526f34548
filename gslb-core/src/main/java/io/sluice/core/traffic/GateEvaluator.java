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

/**
 * Evaluates a step's gates over the pools that receive traffic: each has an endpoint {@code up},
 * the worst probe error rate and p99 latency among their endpoints are within bounds, and the
 * external metric (if any) is at most its threshold. Every measured value is reported.
 */
final class GateEvaluator {
  private final ExternalMetric external;

  GateEvaluator(ExternalMetric external) {
    this.external = external;
  }

  GateResult evaluate(SluiceConfig config, HealthView health, List<String> targets, GateConfig g) {
    Map<String, Object> measured = new LinkedHashMap<>();
    StringBuilder failure = new StringBuilder();
    double worstError = 0;
    double worstP99 = Double.NaN;
    Map<String, Object> upByPool = new LinkedHashMap<>();
    for (String pool : targets) {
      PoolConfig pc = config.pools().get(pool);
      int up = 0;
      int total = pc == null ? 0 : pc.endpoints().size();
      if (pc != null) {
        for (EndpointConfig e : pc.endpoints()) {
          EndpointHealth h = health.get(PoolConfig.endpointKey(pool, e));
          if (h.verdict() == Verdict.UP) {
            up++;
          }
          if (h.verdict() != Verdict.UNKNOWN) {
            worstError = Math.max(worstError, h.errorRate());
            if (!Double.isNaN(h.rttP99Millis())) {
              worstP99 =
                  Double.isNaN(worstP99) ? h.rttP99Millis() : Math.max(worstP99, h.rttP99Millis());
            }
          }
        }
      }
      upByPool.put(pool, up + "/" + total);
      if (g.requireUp() && up == 0) {
        fail(failure, "pool " + pool + " has no endpoint up");
      }
    }
    measured.put("upEndpoints", upByPool);
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
    return new GateResult(
        failure.length() == 0, measured, failure.length() == 0 ? null : failure.toString());
  }

  private static void fail(StringBuilder sb, String why) {
    if (sb.length() > 0) {
      sb.append("; ");
    }
    sb.append(why);
  }
}
