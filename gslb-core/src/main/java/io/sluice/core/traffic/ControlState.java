package io.sluice.core.traffic;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.control.CommandResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the traffic controller persists, as one immutable value: a revision raised by every
 * change, the global freeze flag, drained pools and endpoints, each service's {@link
 * ServiceControl}, the results of the latest request ids (for idempotent retries), a counter for
 * ids and the scheduled and running {@link MaintenanceWindow maintenance windows} (absent in
 * records written before windows existed: none).
 */
public record ControlState(
    long revision,
    boolean frozen,
    Set<String> drained,
    Map<String, ServiceControl> services,
    List<RequestOutcome> requests,
    long counter,
    List<MaintenanceWindow> maintenance,
    Map<String, List<EndpointConfig>> members) {

  /** How many request ids are remembered for idempotent retries. */
  static final int MAX_REQUESTS = 1000;

  public static final ControlState INITIAL =
      new ControlState(0, false, Set.of(), Map.of(), List.of(), 0, List.of(), Map.of());

  /** The first result of one request id. */
  public record RequestOutcome(String requestId, CommandResult result) {}

  public ControlState {
    drained = Set.copyOf(drained);
    services = Map.copyOf(services);
    requests = List.copyOf(requests);
    maintenance = maintenance == null ? List.of() : List.copyOf(maintenance);
    members = members == null ? Map.of() : Map.copyOf(members);
  }

  /** The state with the dynamic members of every pool replaced. */
  ControlState withMembers(Map<String, List<EndpointConfig>> m) {
    return new ControlState(revision, frozen, drained, services, requests, counter, maintenance, m);
  }

  /**
   * True when the controller must not act on its own for {@code name}: a global freeze, the
   * service's own freeze, or a running maintenance window that covers it.
   */
  boolean automationFrozen(String name) {
    return frozen || service(name).frozen() || maintenanceFreezes(name);
  }

  /** True while a running maintenance window covers {@code name}. */
  public boolean maintenanceFreezes(String name) {
    for (MaintenanceWindow w : maintenance) {
      if (w.active() && w.services().contains(name)) {
        return true;
      }
    }
    return false;
  }

  /** The window with this id, or null. */
  MaintenanceWindow window(String id) {
    for (MaintenanceWindow w : maintenance) {
      if (w.id().equals(id)) {
        return w;
      }
    }
    return null;
  }

  /** The state with the windows replaced. */
  ControlState withMaintenance(List<MaintenanceWindow> m) {
    return new ControlState(revision, frozen, drained, services, requests, counter, m, members);
  }

  public ServiceControl service(String name) {
    return services.getOrDefault(name, ServiceControl.INITIAL);
  }

  CommandResult request(String requestId) {
    for (RequestOutcome r : requests) {
      if (r.requestId().equals(requestId)) {
        return r.result();
      }
    }
    return null;
  }

  ControlState withService(String name, ServiceControl sc) {
    Map<String, ServiceControl> copy = new HashMap<>(services);
    copy.put(name, sc);
    return new ControlState(
        revision, frozen, drained, copy, requests, counter, maintenance, members);
  }

  ControlState withFrozen(boolean f) {
    return new ControlState(
        revision, f, drained, services, requests, counter, maintenance, members);
  }

  ControlState withDrained(Set<String> d) {
    return new ControlState(revision, frozen, d, services, requests, counter, maintenance, members);
  }

  ControlState withRequest(String requestId, CommandResult result) {
    List<RequestOutcome> copy = new ArrayList<>(requests);
    copy.add(new RequestOutcome(requestId, result));
    if (copy.size() > MAX_REQUESTS) {
      copy = copy.subList(copy.size() - MAX_REQUESTS, copy.size());
    }
    return new ControlState(
        revision, frozen, drained, services, copy, counter, maintenance, members);
  }

  ControlState nextRevision() {
    return new ControlState(
        revision + 1, frozen, drained, services, requests, counter, maintenance, members);
  }

  /** The state with the id counter moved on (ids of ramps, drills and switch records). */
  ControlState withCounter(long c) {
    return new ControlState(revision, frozen, drained, services, requests, c, maintenance, members);
  }
}
