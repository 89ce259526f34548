package io.sluice.core.control;

import java.util.Map;

/** Where every component appends audit events; the durable implementation fsyncs each one. */
public interface AuditSink {

  /** Discards events (tests and tools that need no audit). */
  AuditSink NONE = (actor, action, service, reason, before, after, details) -> 0;

  /** Appends one event and returns its sequence number. */
  long append(
      Actor actor,
      String action,
      String service,
      String reason,
      long versionBefore,
      long versionAfter,
      Map<String, Object> details);
}
