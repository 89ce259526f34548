package io.sluice.core.spi;

/**
 * Whether this node runs the traffic controller's automatic steps (ramps, gates, auto-rollback,
 * timers, the reaction to verdicts): exactly one node of a cluster does, the single node always.
 * Operator commands run on every node regardless.
 */
public interface Leadership {

  /** A single node leads itself. */
  Leadership ALWAYS = () -> true;

  /** True while this node is the leader. */
  boolean leads();
}
