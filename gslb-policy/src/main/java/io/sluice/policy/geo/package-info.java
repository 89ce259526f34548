/**
 * The {@code geo} step: the client's own region first, then the nearest regions.
 *
 * <p>Syntax: {@code geo}. Example: {@code chain: [healthy, geo, weighted]}. Metrics: {@code
 * serviceAnswer(service, pool, nearest)} reports whether each answer stayed in the client's region.
 */
package io.sluice.policy.geo;
