package io.sluice.core.health;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * An immutable view of every endpoint's health, keyed by endpoint key ({@code pool/endpoint}).
 * Endpoints missing from the view are {@link EndpointHealth#UNKNOWN}.
 */
public final class HealthView {
  /** The view in which nothing is known yet. */
  public static final HealthView EMPTY = new HealthView(Map.of(), 0);

  private final Map<String, EndpointHealth> byEndpoint;
  private final Map<String, PoolLoad> poolLoad;
  private final long version;

  private HealthView(Map<String, EndpointHealth> byEndpoint, long version) {
    this(byEndpoint, Map.of(), version);
  }

  private HealthView(
      Map<String, EndpointHealth> byEndpoint, Map<String, PoolLoad> poolLoad, long version) {
    this.byEndpoint = byEndpoint;
    this.poolLoad = poolLoad;
    this.version = version;
  }

  /** A view holding a copy of {@code byEndpoint}. */
  public static HealthView of(Map<String, EndpointHealth> byEndpoint, long version) {
    return new HealthView(Map.copyOf(byEndpoint), version);
  }

  /** Health of one endpoint. */
  public EndpointHealth get(String endpointKey) {
    return byEndpoint.getOrDefault(endpointKey, EndpointHealth.UNKNOWN);
  }

  /** Verdict of one endpoint. */
  public Verdict verdict(String endpointKey) {
    return get(endpointKey).verdict();
  }

  /** Every endpoint with known health. */
  public Map<String, EndpointHealth> all() {
    return byEndpoint;
  }

  /** Increases with every change, so readers can cache derived data per version. */
  public long version() {
    return version;
  }

  /** A new view with one endpoint's health replaced. */
  public HealthView with(String endpointKey, EndpointHealth health) {
    Map<String, EndpointHealth> copy = new HashMap<>(byEndpoint);
    copy.put(endpointKey, health);
    return new HealthView(Map.copyOf(copy), poolLoad, version + 1);
  }

  /**
   * A new view with several endpoints' health replaced and {@code removed} endpoints dropped, or
   * this view when nothing changes.
   */
  public HealthView withAll(Map<String, EndpointHealth> changes, Set<String> removed) {
    if (changes.isEmpty() && removed.stream().noneMatch(byEndpoint::containsKey)) {
      return this;
    }
    Map<String, EndpointHealth> copy = new HashMap<>(byEndpoint);
    copy.keySet().removeAll(removed);
    copy.putAll(changes);
    return new HealthView(Map.copyOf(copy), poolLoad, version + 1);
  }

  /** A new view with several endpoints' health replaced at once. */
  public HealthView withAll(Map<String, EndpointHealth> changes) {
    Map<String, EndpointHealth> copy = new HashMap<>(byEndpoint);
    copy.putAll(changes);
    return new HealthView(Map.copyOf(copy), poolLoad, version + 1);
  }

  /**
   * The current load of pool {@code pool} in the unit of its configured capacity (for example
   * connections or requests per second), or NaN when nothing has been reported or the last report
   * is stale.
   */
  public double poolLoad(String pool) {
    PoolLoad v = poolLoad.get(pool);
    return v == null || v.stale() ? Double.NaN : v.value();
  }

  /** Every reported pool load, stale ones included (marked so). */
  public Map<String, PoolLoad> poolLoads() {
    return poolLoad;
  }

  /** A new view with the given pools' loads replaced by fresh pushed readings (tests, tools). */
  public HealthView withPoolLoads(Map<String, Double> loads) {
    Map<String, PoolLoad> copy = new HashMap<>(poolLoad);
    loads.forEach((k, v) -> copy.put(k, new PoolLoad(v, 0, PoolLoad.Source.PUSH, false)));
    return new HealthView(byEndpoint, Map.copyOf(copy), version + 1);
  }

  /** A new view whose pool loads are exactly {@code loads}, or this view when they are equal. */
  public HealthView withPoolLoadReadings(Map<String, PoolLoad> loads) {
    if (loads.equals(poolLoad)) {
      return this;
    }
    return new HealthView(byEndpoint, Map.copyOf(loads), version + 1);
  }
}
