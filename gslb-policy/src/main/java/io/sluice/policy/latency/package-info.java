/**
 * The {@code latency} step: lowest probe RTT, falling back to geo on stale data.
 *
 * <p>Syntax: {@code latency}. Example: {@code chain: [healthy, latency]}.
 */
package io.sluice.policy.latency;
