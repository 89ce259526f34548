package io.sluice.policy;

/**
 * One preference step of a policy chain: narrows the candidate pools (a bit mask over the service's
 * {@link PoolTable}) for one client. Selectors run when a snapshot is derived and for explain,
 * never per query, so they may allocate; they must be pure functions of their inputs.
 */
public interface Selector {

  /** The pools of {@code candidates} this step keeps; never empty when candidates is not. */
  long select(long candidates, ChainContext ctx);
}
