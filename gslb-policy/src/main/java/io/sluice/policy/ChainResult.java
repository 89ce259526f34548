package io.sluice.policy;

import io.sluice.core.spi.DecisionExplainer;
import java.util.List;

/**
 * What the pool-level part of a chain decided for one (family, cohort, region): the pools left,
 * whether the service failed open, whether the last resort answers, and (when traced) each step.
 */
record ChainResult(
    long pools,
    boolean failOpen,
    boolean lastResort,
    List<DecisionExplainer.Step> steps,
    List<String> events) {

  /** The key under which equal results share their answers. */
  Key key() {
    return new Key(lastResort ? 0 : pools, failOpen, lastResort);
  }

  /** What makes two results give the same answers. */
  record Key(long pools, boolean failOpen, boolean lastResort) {}
}
