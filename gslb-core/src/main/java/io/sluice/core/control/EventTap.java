package io.sluice.core.control;

import java.util.List;

/**
 * Hears every audit event right after it is forced to the audit log, in the log's order, with the
 * switch records it concerns (the running record of its service and any it finished). The webhook
 * outbox listens here, so every kind of event the product audits, present or future, reaches it
 * without a list of kinds to keep in step.
 */
@FunctionalInterface
public interface EventTap {

  /** Hears nothing. */
  EventTap NONE = (event, switches) -> {};

  /**
   * Called under the audit log's append lock, so events arrive in sequence order; must not call
   * back into the audit log. An exception is logged and does not fail the append.
   */
  void recorded(AuditEvent event, List<SwitchRecord> switches);
}
