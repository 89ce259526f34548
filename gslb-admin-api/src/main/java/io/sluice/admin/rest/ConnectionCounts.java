package io.sluice.admin.rest;

/**
 * What the admin listener's connection guard has done: connections closed to make room for new
 * ones, refused because every slot was held by an authenticated client, closed at their request
 * deadline, and the number open now.
 */
public record ConnectionCounts(long evicted, long refused, long timedOut, int open) {}
