package io.sluice.core.control;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every operator action on traffic, as the admin API and CLI call it. Each command is validated,
 * applied as one new snapshot, persisted and audited with {@code actor} before it returns; an
 * optional {@code requestId} makes a retried command a no-op that returns the first result.
 */
public interface ControlPlane {

  /** Sets pool weights of a service, at once or as a ramp. */
  CommandResult setWeights(
      Actor actor,
      String service,
      Map<String, Integer> weights,
      boolean ramp,
      String reason,
      String requestId)
      throws CommandRejectedException;

  /** Starts a planned move of {@code from} pools' share to {@code to} pools, as a gated ramp. */
  CommandResult startMove(
      Actor actor,
      String service,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String reason,
      String requestId)
      throws CommandRejectedException;

  /**
   * Starts a planned move like {@link #startMove(Actor, String, List, List, List, String, String)},
   * moving only clients mapped to {@code region}, or every client when it is null. This default
   * accepts only a null region, for control planes that cannot scope a move.
   */
  default CommandResult startMove(
      Actor actor,
      String service,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String region,
      String reason,
      String requestId)
      throws CommandRejectedException {
    if (region != null) {
      throw CommandRejectedException.invalid(
          "region", "this control plane cannot scope a move to a region");
    }
    return startMove(actor, service, from, to, steps, reason, requestId);
  }

  /** Aborts the move in progress on a service, keeping its current step. */
  CommandResult abortMove(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException;

  /** Restores the last stable plan of one service, or of every service when null. */
  CommandResult rollback(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException;

  /** Freezes or unfreezes automation globally (service null) or for one service. */
  CommandResult freeze(Actor actor, String service, boolean frozen, String reason, String requestId)
      throws CommandRejectedException;

  /** Confirms or rejects the pending step of a service (auto-with-confirm, failback). */
  CommandResult confirm(
      Actor actor, String service, boolean accept, String reason, String requestId)
      throws CommandRejectedException;

  /** Starts a drill: {@code percent} of clients to {@code to} pools for {@code seconds}. */
  CommandResult startDrill(
      Actor actor,
      String service,
      List<String> to,
      double percent,
      long seconds,
      String reason,
      String requestId)
      throws CommandRejectedException;

  /** Stops the drill of a service and restores its traffic. */
  CommandResult stopDrill(Actor actor, String service, String reason, String requestId)
      throws CommandRejectedException;

  /** Drains (no new traffic) or undrains a pool (by name) or an endpoint ({@code pool/name}). */
  CommandResult drain(Actor actor, String target, boolean drained, String reason, String requestId)
      throws CommandRejectedException;

  /**
   * Schedules a maintenance window (docs/traffic.md, "Maintenance windows"); the controller starts
   * and ends it. This default refuses, for control planes without windows.
   */
  default CommandResult addMaintenance(
      Actor actor, MaintenanceRequest window, String reason, String requestId)
      throws CommandRejectedException {
    throw CommandRejectedException.conflict("this control plane has no maintenance windows");
  }

  /** Cancels a maintenance window: a scheduled one is dropped, a running one ends now. */
  default CommandResult cancelMaintenance(Actor actor, String id, String reason, String requestId)
      throws CommandRejectedException {
    throw CommandRejectedException.conflict("this control plane has no maintenance windows");
  }

  /** The scheduled and running maintenance windows, soonest first, as the API shows them. */
  default List<Map<String, Object>> maintenance() {
    return List.of();
  }

  /**
   * Adds a dynamic member to {@code pool}, or changes the address or weight of one
   * (docs/traffic.md, "Dynamic members"); it is served and health-checked from the next snapshot,
   * without a reload.
   */
  default CommandResult setMember(
      Actor actor,
      String pool,
      String name,
      String address,
      Integer weight,
      String reason,
      String requestId)
      throws CommandRejectedException {
    throw CommandRejectedException.conflict("this control plane has no dynamic members");
  }

  /** The names of the dynamic members of {@code pool} (none for a control plane without them). */
  default java.util.Set<String> dynamicMembers(String pool) {
    return java.util.Set.of();
  }

  /** Removes a dynamic member of {@code pool}. */
  default CommandResult removeMember(
      Actor actor, String pool, String name, String reason, String requestId)
      throws CommandRejectedException {
    throw CommandRejectedException.conflict("this control plane has no dynamic members");
  }

  /** The traffic state of every service, for status screens. */
  List<ServiceStatus> status();

  /** Audit events matching {@code query}, newest first. */
  List<AuditEvent> audit(AuditQuery query);

  /** Switch records of one service (or all when null), newest first. */
  List<SwitchRecord> switches(String service);

  /** One switch record. */
  Optional<SwitchRecord> switchRecord(String id);

  /**
   * Why the state store cannot take changes (a full or unwritable state directory), or empty when
   * its last write succeeded; {@code /readyz} and the metrics report it.
   */
  default java.util.Optional<String> storeProblem() {
    return java.util.Optional.empty();
  }
}
