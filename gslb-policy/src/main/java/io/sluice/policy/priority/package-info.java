/**
 * The {@code priority} step: ordered failover.
 *
 * <p>Syntax: {@code priority}. Example: {@code chain: [healthy, priority]}.
 */
package io.sluice.policy.priority;
