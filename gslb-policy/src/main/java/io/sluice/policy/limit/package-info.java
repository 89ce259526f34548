/**
 * The {@code limit} step: at most K records per answer.
 *
 * <p>Syntax: {@code limit} or {@code limit(K)} (1..64; default the service's {@code maxRecords}).
 * Example: {@code chain: [healthy, geo, limit(2)]}.
 */
package io.sluice.policy.limit;
