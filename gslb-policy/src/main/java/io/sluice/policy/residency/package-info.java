/**
 * The {@code residency} red-line step: clients of some regions only get some pools.
 *
 * <p>Syntax: {@code residency(RULE)}, with RULE defined under {@code topology.residency}. Example:
 * {@code chain: [healthy, residency(eu-only), geo]}.
 */
package io.sluice.policy.residency;
