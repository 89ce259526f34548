package io.sluice.policy;

/**
 * The decision context of one (family, cohort, client region) in one snapshot: the shared {@link
 * Answers}, the set of regions whose clients get the same answers (for the ECS scope), and the
 * policy events to count per query.
 */
record Outcome(Answers answers, long regionClass, String[] events) {}
