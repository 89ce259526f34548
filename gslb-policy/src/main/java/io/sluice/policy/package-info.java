/**
 * The policy chain: {@link io.sluice.policy.PolicyPlanner} turns the pools of a GSLB service into
 * the answer for one client, reading only an immutable snapshot and never blocking. One sub-package
 * per step; {@code topology} maps clients to regions.
 */
package io.sluice.policy;
