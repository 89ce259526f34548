package io.sluice.probe.testing;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditSink;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** Keeps every audit event in memory for assertions. */
public final class RecordingAudit implements AuditSink {
  private final List<AuditEvent> events = new CopyOnWriteArrayList<>();

  @Override
  public long append(
      Actor actor,
      String action,
      String service,
      String reason,
      long versionBefore,
      long versionAfter,
      Map<String, Object> details) {
    events.add(
        new AuditEvent(
            events.size() + 1,
            0,
            actor.name(),
            actor.role(),
            action,
            service,
            reason,
            versionBefore,
            versionAfter,
            details));
    return events.size();
  }

  public List<AuditEvent> events() {
    return List.copyOf(events);
  }

  public List<AuditEvent> actions(String action) {
    return events.stream().filter(e -> e.action().equals(action)).toList();
  }
}
