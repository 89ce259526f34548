/**
 * The durable audit log: JSON lines, fsync'd per event, rotated by size, queried with filters and
 * paging. See {@code docs/traffic.md}, "Audit log".
 */
package io.sluice.core.audit;
