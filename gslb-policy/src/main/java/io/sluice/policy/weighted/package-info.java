/**
 * The {@code weighted} step: shares by weight, one endpoint per answer or a weighted mix.
 *
 * <p>Syntax: {@code weighted}, {@code weighted(one)} or {@code weighted(mix)}. Example: {@code
 * chain: [healthy, geo, weighted]}.
 */
package io.sluice.policy.weighted;
