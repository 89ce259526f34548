package io.sluice.core.config;

import java.time.Duration;

/**
 * Where a pool's load comes from ({@code pools.<name>.load}): pushed through the admin API, and
 * optionally pulled every {@code interval} from a Prometheus-compatible HTTP API ({@code query}
 * sent to {@code url}{@code /api/v1/query}, the first sample is the load). A load older than {@code
 * staleAfter} is ignored.
 */
public record PoolLoadConfig(
    Duration staleAfter, String url, String query, Duration interval, Duration timeout) {

  /** Default age after which a load is ignored. */
  public static final Duration STALE_AFTER = Duration.ofSeconds(60);

  public PoolLoadConfig {
    staleAfter = staleAfter == null ? STALE_AFTER : staleAfter;
    interval = interval == null ? Duration.ofSeconds(15) : interval;
    timeout = timeout == null ? Duration.ofSeconds(2) : timeout;
  }

  /** Push only, with the default staleness. */
  public static PoolLoadConfig defaults() {
    return new PoolLoadConfig(null, null, null, null, null);
  }

  /** True when the load is pulled from a Prometheus query. */
  public boolean pulled() {
    return url != null;
  }

  void validate(String path, Problems p) {
    if (staleAfter.isNegative() || staleAfter.isZero()) {
      p.add(Problems.child(path, "staleAfter"), "must be above 0");
    }
    if (interval.isNegative() || interval.isZero()) {
      p.add(Problems.child(path, "interval"), "must be above 0");
    }
    if (timeout.isNegative() || timeout.isZero()) {
      p.add(Problems.child(path, "timeout"), "must be above 0");
    }
    if ((url == null) != (query == null)) {
      p.add(
          Problems.child(path, url == null ? "url" : "query"),
          "is required with " + (url == null ? "query" : "url"));
    }
    if (url != null) {
      ExternalGateConfig.checkHttpUrl(Problems.child(path, "url"), url, p);
    }
    if (query != null && query.isBlank()) {
      p.add(Problems.child(path, "query"), "must not be empty");
    }
    if (url != null && staleAfter.compareTo(interval) <= 0) {
      p.add(
          Problems.child(path, "staleAfter"),
          "must be longer than interval ("
              + DurationParser.format(interval)
              + "), or every pulled load is stale before the next pull");
    }
  }
}
