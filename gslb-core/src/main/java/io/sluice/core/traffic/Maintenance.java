package io.sluice.core.traffic;

import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.state.Shift;
import io.sluice.core.traffic.MaintenanceWindow.State;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What maintenance windows do to the durable state: scheduling and cancelling them (operator
 * commands, after {@link CommandRules#maintenance}), and starting and ending them (controller
 * steps, on the leader's clock). A window's change is applied and undone in the same published
 * state as its freeze, with the short TTL for every service whose answers change.
 */
final class Maintenance {
  /** The trigger of a window's switch records. */
  static final String TRIGGER = "maintenance-window";

  private Maintenance() {}

  /** The services a window of {@code kind} on {@code target} changes and freezes. */
  static List<String> affected(SluiceConfig config, MaintenanceKind kind, String target) {
    if (kind == MaintenanceKind.MOVE) {
      return List.of(target);
    }
    String pool = pool(target);
    List<String> out = new ArrayList<>();
    for (Map.Entry<String, ServiceConfig> e : PlanProjection.services(config).entrySet()) {
      if (PlanProjection.poolNames(e.getValue()).contains(pool)) {
        out.add(e.getKey());
      }
    }
    return out;
  }

  /**
   * Schedules a window checked by {@link CommandRules#maintenance}. Refused (409) when it overlaps
   * in time a window on the same target or on a service it affects: one window per service at a
   * time, so that a window's end never unfreezes what another still holds.
   */
  static Outcome add(
      ControlState cs,
      SluiceConfig config,
      String actor,
      MaintenanceKind kind,
      String target,
      List<String> from,
      List<String> to,
      long start,
      long end,
      String reason)
      throws CommandRejectedException {
    List<String> services = affected(config, kind, target);
    for (MaintenanceWindow w : cs.maintenance()) {
      if (!w.overlaps(start, end)) {
        continue;
      }
      Set<String> shared = new HashSet<>(w.services());
      shared.retainAll(services);
      if (w.target().equals(target) || !shared.isEmpty()) {
        throw CommandRejectedException.conflict(
            "the window overlaps "
                + describe(w)
                + (shared.isEmpty()
                    ? " on the same target"
                    : " on " + shared.stream().sorted().toList())
                + "; one window per service at a time: cancel it or choose another time");
      }
    }
    long n = cs.counter() + 1;
    MaintenanceWindow w =
        new MaintenanceWindow(
            "mw-" + n,
            kind,
            target,
            from,
            to,
            start,
            end,
            State.SCHEDULED,
            services,
            false,
            actor,
            reason,
            List.of());
    List<MaintenanceWindow> all = new ArrayList<>(cs.maintenance());
    all.add(w);
    return new Outcome(
        cs.withCounter(n).withMaintenance(all),
        "maintenance-add",
        services.size() == 1 ? services.get(0) : null,
        "scheduled " + describe(w) + ", freezing " + services,
        view(w));
  }

  /** Cancels a window: a scheduled one is dropped, a running one ends now (undone, unfrozen). */
  static Outcome cancel(ControlState cs, SluiceConfig config, String id, long now)
      throws CommandRejectedException {
    MaintenanceWindow w = id == null ? null : cs.window(id);
    if (w == null) {
      throw CommandRejectedException.invalid(
          "id",
          "unknown maintenance window '"
              + id
              + "' (windows: "
              + cs.maintenance().stream().map(MaintenanceWindow::id).toList()
              + ")");
    }
    if (!w.active()) {
      return new Outcome(
          cs.withMaintenance(without(cs, w)),
          "maintenance-cancel",
          single(w),
          "cancelled " + describe(w) + " before it started",
          view(w));
    }
    return end(cs, config, w, now, true);
  }

  /**
   * The controller's step for one window at {@code now}: starts it when its start has come, ends it
   * when its end has, and drops one whose whole time passed while no controller ran (a node down,
   * no leader) without applying anything. Null when nothing is due.
   */
  static Outcome step(ControlState cs, SluiceConfig config, MaintenanceWindow w, long now) {
    if (!w.active() && now >= w.endMillis()) {
      return new Outcome(
          cs.withMaintenance(without(cs, w)),
          "maintenance-end",
          single(w),
          describe(w) + " passed while no controller ran; nothing was applied",
          withNote(view(w), "missed"));
    }
    if (!w.active() && now >= w.startMillis()) {
      return start(cs, config, w, now);
    }
    if (w.active() && now >= w.endMillis()) {
      return end(cs, config, w, now, false);
    }
    return null;
  }

  private static Outcome start(
      ControlState cs, SluiceConfig config, MaintenanceWindow w, long now) {
    CommandProblems p = new CommandProblems();
    target(p, config, w.kind(), w.target(), w.from(), w.to());
    if (!p.isEmpty()) {
      // A reload removed what the window was for: nothing to drain or move any more.
      return new Outcome(
          cs.withMaintenance(without(cs, w)),
          "maintenance-end",
          single(w),
          describe(w) + " dropped at its start: " + p.list().get(0).message(),
          withNote(view(w), "target-gone"));
    }
    ControlState next = cs;
    boolean made;
    List<String> compressed = new ArrayList<>();
    if (w.kind() == MaintenanceKind.DRAIN) {
      next = drain(cs, config, w.target(), true, now, compressed);
      made = next != cs;
    } else {
      ServiceConfig cfg = PlanProjection.services(config).get(w.target());
      ServiceControl sc = cs.service(w.target());
      List<Shift> shifts = new ArrayList<>(sc.shifts());
      shifts.add(new Shift(shiftId(w), w.from(), w.to(), 100));
      next = cs.withService(w.target(), Transitions.compress(sc.withShifts(shifts), cfg, now));
      compressed.add(w.target());
      made = true;
    }
    long n = next.counter();
    List<SwitchRecord> records = new ArrayList<>();
    for (String service : w.services()) {
      n++;
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("window", w.id());
      d.put("kind", w.kind().label());
      d.put("target", w.target());
      d.put("endsMillis", w.endMillis());
      SwitchRecord r =
          Switches.start(
              "sw-" + n,
              service,
              TRIGGER,
              w.kind() == MaintenanceKind.DRAIN ? List.of(w.target()) : w.from(),
              w.kind() == MaintenanceKind.DRAIN ? List.of() : w.to(),
              now,
              d);
      records.add(Switches.step(r, "start", 100, now, null));
    }
    MaintenanceWindow started = w.started(made, records);
    next = next.withCounter(n).withMaintenance(replace(next, w, started));
    Map<String, Object> d = view(started);
    d.put("shortTtl", compressed);
    return new Outcome(
        next,
        "maintenance-start",
        single(w),
        "started "
            + describe(w)
            + (made ? "" : " (already drained by an operator: left as it is at the end)")
            + "; automation frozen for "
            + w.services(),
        d);
  }

  private static Outcome end(
      ControlState cs, SluiceConfig config, MaintenanceWindow w, long now, boolean cancelled) {
    ControlState next = cs.withMaintenance(without(cs, w));
    List<String> compressed = new ArrayList<>();
    if (w.applied() && w.kind() == MaintenanceKind.DRAIN) {
      next = drain(next, config, w.target(), false, now, compressed);
    } else if (w.applied()) {
      ServiceControl sc = next.service(w.target());
      ServiceConfig cfg = PlanProjection.services(config).get(w.target());
      ServiceControl without = sc.withoutShift(shiftId(w));
      if (cfg != null && !without.equals(sc)) {
        next = next.withService(w.target(), Transitions.compress(without, cfg, now));
        compressed.add(w.target());
      }
    }
    List<String> held = new ArrayList<>();
    Map<String, ServiceConfig> services = PlanProjection.services(config);
    for (String name : w.services()) {
      ServiceConfig cfg = services.get(name);
      if (cfg != null) {
        next = Transitions.releaseHeld(next, name, now, cfg.traffic().confirmTimeout(), held);
      }
    }
    String outcome = cancelled ? "cancelled" : "completed";
    List<SwitchRecord> finished = new ArrayList<>();
    for (SwitchRecord r : w.records()) {
      finished.add(
          Switches.finish(Switches.step(r, outcome, 0, now, null), outcome, now, Map.of()));
    }
    Map<String, Object> d = view(w);
    d.put("shortTtl", compressed);
    if (!held.isEmpty()) {
      d.put("held", held);
    }
    return new Outcome(
        next,
        cancelled ? "maintenance-cancel" : "maintenance-end",
        single(w),
        (cancelled ? "cancelled running " : "ended ")
            + describe(w)
            + (w.applied() ? "; undone" : "")
            + "; automation unfrozen for "
            + w.services()
            + (held.isEmpty()
                ? ""
                : "; held by the window, waiting for confirm or reject: "
                    + String.join("; ", held)),
        d,
        finished);
  }

  /**
   * Drains or undrains {@code target}; the services using its pool serve the short TTL from the
   * first changed answer (added to {@code compressed}). Returns {@code cs} itself when the target
   * already is in that state.
   */
  static ControlState drain(
      ControlState cs,
      SluiceConfig config,
      String target,
      boolean drained,
      long now,
      List<String> compressed) {
    Set<String> set = new HashSet<>(cs.drained());
    if (!(drained ? set.add(target) : set.remove(target))) {
      return cs;
    }
    ControlState next = cs.withDrained(set);
    for (Map.Entry<String, ServiceConfig> e : PlanProjection.services(config).entrySet()) {
      if (PlanProjection.poolNames(e.getValue()).contains(pool(target))) {
        String name = e.getKey();
        next = next.withService(name, Transitions.compress(next.service(name), e.getValue(), now));
        compressed.add(name);
      }
    }
    return next;
  }

  /** The target rules of a window of {@code kind} (also checked again when it starts). */
  static void target(
      CommandProblems p,
      SluiceConfig config,
      MaintenanceKind kind,
      String target,
      List<String> from,
      List<String> to) {
    if (kind == MaintenanceKind.DRAIN) {
      CommandRules.drainTarget(p, config, target);
      if (from != null && !from.isEmpty() || to != null && !to.isEmpty()) {
        p.add("from", "only a move window takes from and to pools");
      }
      return;
    }
    Map<String, ServiceConfig> services = PlanProjection.services(config);
    ServiceConfig cfg = target == null ? null : services.get(target);
    if (cfg == null) {
      p.add(
          "target",
          "a move window's target is a service; unknown service '"
              + target
              + "' (services: "
              + services.keySet()
              + ")");
      return;
    }
    CommandRules.move(
        p,
        target,
        PlanProjection.poolNames(cfg),
        config.regions().keySet(),
        from,
        to,
        List.of(),
        null);
  }

  /** A window as the API, the CLI and the audit log show it. */
  static Map<String, Object> view(MaintenanceWindow w) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", w.id());
    m.put("kind", w.kind().label());
    m.put("target", w.target());
    if (w.kind() == MaintenanceKind.MOVE) {
      m.put("from", w.from());
      m.put("to", w.to());
    }
    m.put("state", w.state().label());
    m.put("startMillis", w.startMillis());
    m.put("endMillis", w.endMillis());
    m.put("start", Instant.ofEpochMilli(w.startMillis()).toString());
    m.put("end", Instant.ofEpochMilli(w.endMillis()).toString());
    m.put("services", w.services());
    m.put("createdBy", w.actor());
    m.put("reason", w.reason());
    return m;
  }

  private static Map<String, Object> withNote(Map<String, Object> m, String note) {
    m.put("note", note);
    return m;
  }

  private static String describe(MaintenanceWindow w) {
    String what =
        w.kind() == MaintenanceKind.DRAIN
            ? "drain " + w.target()
            : "move of " + w.target() + " from " + w.from() + " to " + w.to();
    return "maintenance window "
        + w.id()
        + " ("
        + what
        + ", "
        + Instant.ofEpochMilli(w.startMillis())
        + " to "
        + Instant.ofEpochMilli(w.endMillis())
        + ")";
  }

  private static String single(MaintenanceWindow w) {
    return w.services().size() == 1 ? w.services().get(0) : null;
  }

  private static String shiftId(MaintenanceWindow w) {
    return w.id();
  }

  private static String pool(String target) {
    int slash = target.indexOf('/');
    return slash < 0 ? target : target.substring(0, slash);
  }

  private static List<MaintenanceWindow> without(ControlState cs, MaintenanceWindow w) {
    return cs.maintenance().stream().filter(x -> !x.id().equals(w.id())).toList();
  }

  private static List<MaintenanceWindow> replace(
      ControlState cs, MaintenanceWindow old, MaintenanceWindow now) {
    return cs.maintenance().stream().map(x -> x.id().equals(old.id()) ? now : x).toList();
  }
}
