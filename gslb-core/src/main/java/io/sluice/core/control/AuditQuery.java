package io.sluice.core.control;

/** A filter over the audit log; null fields match everything. */
public record AuditQuery(
    String service, String actor, Long fromMillis, Long toMillis, int offset, int limit) {

  public AuditQuery {
    limit = limit <= 0 ? 100 : Math.min(limit, 1000);
    offset = Math.max(0, offset);
  }
}
