package io.sluice.probe.quorum;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.HealthConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.ProbeReport;
import java.util.HashMap;
import java.util.Map;

/**
 * Checks a {@link ProbeReport} from a remote vantage against the current configuration before any
 * of it is used, so one bad report can never vote. Throws {@link IllegalArgumentException} naming
 * the first bad field, for example {@code results[3].check: must be heartbeat, fullLink or canary,
 * was 'ping'}.
 */
public final class ReportValidator {
  /** The most results one report may carry. */
  public static final int MAX_RESULTS = 100_000;

  /** How far ahead of this node's clock a report's time may be. */
  public static final long MAX_SKEW_MILLIS = 60_000;

  private static final int MAX_ERROR = 1000;

  private final SluiceConfig config;
  private final Map<String, HealthConfig> healthByEndpoint = new HashMap<>();

  public ReportValidator(SluiceConfig config) {
    this.config = config;
    config
        .pools()
        .forEach(
            (pool, p) -> {
              for (EndpointConfig e : p.endpoints()) {
                healthByEndpoint.put(
                    PoolConfig.endpointKey(pool, e), e.health() != null ? e.health() : p.health());
              }
            });
  }

  /** Validates {@code r} as received at {@code nowMillis}. */
  public void validate(ProbeReport r, long nowMillis) {
    if (r == null) {
      throw new IllegalArgumentException("report: is required");
    }
    if (r.vantage() == null || !r.vantage().matches("[A-Za-z0-9._-]{1,64}")) {
      throw new IllegalArgumentException(
          "vantage: must be 1..64 letters, digits, '.', '_' or '-', was "
              + (r.vantage() == null ? "missing" : "'" + r.vantage() + "'"));
    }
    if (r.vantage().equals(config.localVantage())) {
      throw new IllegalArgumentException(
          "vantage: '" + r.vantage() + "' is this node's own vantage name");
    }
    if (r.timeMillis() <= 0) {
      throw new IllegalArgumentException("timeMillis: must be positive, was " + r.timeMillis());
    }
    if (r.timeMillis() > nowMillis + MAX_SKEW_MILLIS) {
      throw new IllegalArgumentException(
          "timeMillis: is "
              + (r.timeMillis() - nowMillis) / 1000
              + " s ahead of this node's clock (at most "
              + MAX_SKEW_MILLIS / 1000
              + " s allowed)");
    }
    long stale = config.probes().staleAfter().toMillis();
    if (r.timeMillis() < nowMillis - stale) {
      throw new IllegalArgumentException(
          "timeMillis: is "
              + (nowMillis - r.timeMillis()) / 1000
              + " s old, older than probes.staleAfter ("
              + stale / 1000
              + " s)");
    }
    if (r.results().size() > MAX_RESULTS) {
      throw new IllegalArgumentException(
          "results: at most " + MAX_RESULTS + " per report, was " + r.results().size());
    }
    for (int i = 0; i < r.results().size(); i++) {
      validate("results[" + i + "]", r.results().get(i));
    }
  }

  private void validate(String path, ProbeReport.Result res) {
    if (res == null) {
      throw new IllegalArgumentException(path + ": must not be null");
    }
    if (res.endpoint() == null || res.endpoint().isBlank()) {
      throw new IllegalArgumentException(path + ".endpoint: is required");
    }
    String check = res.check();
    if (!"heartbeat".equals(check) && !"fullLink".equals(check) && !"canary".equals(check)) {
      throw new IllegalArgumentException(
          path
              + ".check: must be heartbeat, fullLink or canary, was "
              + (check == null ? "missing" : "'" + check + "'"));
    }
    if ("canary".equals(check)) {
      if (!config.probes().canaries().contains(res.endpoint())) {
        throw new IllegalArgumentException(
            path + ".endpoint: '" + res.endpoint() + "' is not a configured canary");
      }
    } else {
      HealthConfig h = healthByEndpoint.get(res.endpoint());
      if (h == null) {
        throw new IllegalArgumentException(
            path + ".endpoint: unknown endpoint '" + res.endpoint() + "' (expected pool/endpoint)");
      }
      boolean configured = "heartbeat".equals(check) ? h.heartbeat() != null : h.fullLink() != null;
      if (!configured) {
        throw new IllegalArgumentException(
            path + ".check: endpoint '" + res.endpoint() + "' has no " + check + " check");
      }
    }
    if (!Double.isFinite(res.rttMillis()) || res.rttMillis() < 0) {
      throw new IllegalArgumentException(
          path + ".rttMillis: must be a finite number >= 0, was " + res.rttMillis());
    }
    if (res.error() != null && res.error().length() > MAX_ERROR) {
      throw new IllegalArgumentException(
          path + ".error: at most " + MAX_ERROR + " characters, was " + res.error().length());
    }
  }
}
