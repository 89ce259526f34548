package io.sluice.core.control;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A maintenance window an operator asks for: a {@code kind} of change on {@code target} (a pool or
 * {@code pool/endpoint} to drain, or a service to move {@code from} some pools {@code to} others),
 * from {@code startMillis} (null: now) for {@code durationSeconds}.
 */
public record MaintenanceRequest(
    MaintenanceKind kind,
    String target,
    List<String> from,
    List<String> to,
    Long startMillis,
    Long durationSeconds) {

  public MaintenanceRequest {
    // Null items are kept for the rules to report by index.
    from = from == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(from));
    to = to == null ? List.of() : Collections.unmodifiableList(new ArrayList<>(to));
  }
}
