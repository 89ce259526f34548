/**
 * The {@code capacity} step: pools above their load watermark stop taking new share.
 *
 * <p>Syntax: {@code capacity} or {@code capacity(PERCENT)}. Example: {@code chain: [healthy, geo,
 * capacity(75), weighted]}.
 */
package io.sluice.policy.capacity;
