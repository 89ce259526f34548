package io.sluice.core.traffic;

import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.SwitchRecord;
import java.util.List;
import java.util.Locale;

/**
 * A scheduled maintenance window, part of the durable {@link ControlState}: from {@code
 * startMillis} to {@code endMillis} it drains a pool or an endpoint ({@link MaintenanceKind#DRAIN},
 * {@code target} is {@code pool} or {@code pool/endpoint}) or moves a service's clients from some
 * pools to others ({@link MaintenanceKind#MOVE}, {@code target} is the service), and freezes the
 * automation of every service in {@code services}. The controller starts and ends it on its clock
 * (on a cluster, the leader); {@code applied} says whether the window itself made the change, so
 * its end undoes only what it did. {@code records} are its running switch records, one per affected
 * service.
 */
public record MaintenanceWindow(
    String id,
    MaintenanceKind kind,
    String target,
    List<String> from,
    List<String> to,
    long startMillis,
    long endMillis,
    State state,
    List<String> services,
    boolean applied,
    String actor,
    String reason,
    List<SwitchRecord> records) {

  /** Where a window is in its life; an ended or cancelled window leaves the state. */
  public enum State {
    /** Waits for its start. */
    SCHEDULED,
    /** Started: its change is in effect and its services' automation is frozen. */
    ACTIVE;

    /** The lower-case name used in the API and the CLI. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  public MaintenanceWindow {
    from = from == null ? List.of() : List.copyOf(from);
    to = to == null ? List.of() : List.copyOf(to);
    services = services == null ? List.of() : List.copyOf(services);
    records = records == null ? List.of() : List.copyOf(records);
  }

  /** True while the window runs: its change applies and its services are frozen. */
  public boolean active() {
    return state == State.ACTIVE;
  }

  /** True when this window's time range shares any instant with {@code [start, end)}. */
  boolean overlaps(long start, long end) {
    return startMillis < end && start < endMillis;
  }

  /** The window started, with whether it made its change itself and its running records. */
  MaintenanceWindow started(boolean madeChange, List<SwitchRecord> running) {
    return new MaintenanceWindow(
        id,
        kind,
        target,
        from,
        to,
        startMillis,
        endMillis,
        State.ACTIVE,
        services,
        madeChange,
        actor,
        reason,
        running);
  }
}
