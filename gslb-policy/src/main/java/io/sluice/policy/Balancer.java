package io.sluice.policy;

/**
 * The balancing step of a chain ({@code weighted} or {@code hash}): spreads clients over the
 * candidates the earlier steps left. Runs when a snapshot is derived and for explain, never per
 * query.
 */
public interface Balancer {

  /**
   * The spread over {@code candidates}. {@code poolWeights[p]} is pool {@code p}'s effective weight
   * (operator overrides applied); {@code limit} caps the records per answer.
   */
  Spread spread(
      long candidates, int[] poolWeights, EndpointTable endpoints, int limit, ChainContext ctx);
}
