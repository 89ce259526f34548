/**
 * Durable storage of whole-state records: an fsync'd, checksummed journal compacted into an
 * atomically replaced snapshot file, behind the narrow {@link io.sluice.core.store.DurableLog}
 * interface. See {@code docs/traffic.md}, "State store and durability".
 */
package io.sluice.core.store;
