package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonProperty;

/** A pool as used by one service, with its weight (share) in that service. */
public record ServicePoolConfig(String pool, Integer weight) {

  public ServicePoolConfig {
    weight = weight == null ? 1 : weight;
  }

  /** Lets a service list a pool by name alone: {@code pools: [eu-west, us-east]}. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static ServicePoolConfig ofName(String pool) {
    return new ServicePoolConfig(pool, null);
  }

  @JsonCreator(mode = JsonCreator.Mode.PROPERTIES)
  public static ServicePoolConfig of(
      @JsonProperty("pool") String pool, @JsonProperty("weight") Integer weight) {
    return new ServicePoolConfig(pool, weight);
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (p.required(Problems.child(path, "pool"), pool) && !root.pools().containsKey(pool)) {
      p.add(Problems.child(path, "pool"), "unknown pool '" + pool + "'");
    }
    p.range(Problems.child(path, "weight"), weight, 0, 65535);
  }
}
