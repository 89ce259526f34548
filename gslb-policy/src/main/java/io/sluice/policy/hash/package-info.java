/**
 * The {@code hash} step: consistent-hash equal-cost spreading on the client subnet.
 *
 * <p>Syntax: {@code hash} or {@code hash(TOLERANCE)} (percent, default 10). Example: {@code chain:
 * [healthy, hash]}.
 */
package io.sluice.policy.hash;
