package io.sluice.core.control;

/** The outcome of an accepted command: the snapshot version it produced and a human summary. */
public record CommandResult(long snapshotVersion, boolean changed, String message) {}
