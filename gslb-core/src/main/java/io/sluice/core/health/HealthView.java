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
  private final Map<String, Double> poolLoad;
  private final long version;

  private HealthView(Map<String, EndpointHealth> byEndpoint, long version) {
    this(byEndpoint, Map.of(), version);
  }

  private HealthView(
      Map<String, EndpointHealth> byEndpoint, Map<String, Double> poolLoad, long version) {
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
    return new HealthView(Map.copyOf(copy), version + 1);
  }

  /** A new view with several endpoints' health replaced at once. */
  public HealthView withAll(Map<String, EndpointHealth> changes) {
    Map<String, EndpointHealth> copy = new HashMap<>(byEndpoint);
    copy.putAll(changes);
    return new HealthView(Map.copyOf(copy), poolLoad, version + 1);
  }

  /**
   * The current load of pool {@code pool} in the unit of its configured capacity (for example
   * connections or requests per second), or NaN when nothing has been reported.
   */
  public double poolLoad(String pool) {
    Double v = poolLoad.get(pool);
    return v == null ? Double.NaN : v;
  }

  /** Every reported pool load. */
  public Map<String, Double> poolLoads() {
    return poolLoad;
  }

  /** A new view with the given pools' loads replaced (the capacity-aware selector reads them). */
  public HealthView withPoolLoads(Map<String, Double> loads) {
    Map<String, Double> copy = new HashMap<>(poolLoad);
    copy.putAll(loads);
    return new HealthView(byEndpoint, Map.copyOf(copy), version + 1);
  }
}
