package io.sluice.core.traffic;

import io.sluice.core.control.SwitchRecord;
import java.util.List;
import java.util.Map;

/** The next state a command or controller step produces, with what to audit. */
record Outcome(
    ControlState next,
    String action,
    String service,
    String message,
    Map<String, Object> details,
    List<SwitchRecord> finished) {
  Outcome(
      ControlState next,
      String action,
      String service,
      String message,
      Map<String, Object> details) {
    this(next, action, service, message, details, List.of());
  }

  /** This outcome with its next state at the next revision, as the state writer records it. */
  Outcome revised() {
    return new Outcome(next.nextRevision(), action, service, message, details, finished);
  }

  Outcome withAction(String a) {
    return new Outcome(next, a, service, message, details, finished);
  }
}
