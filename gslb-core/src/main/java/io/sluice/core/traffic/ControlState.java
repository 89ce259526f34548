package io.sluice.core.traffic;

import io.sluice.core.control.CommandResult;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Everything the traffic controller persists, as one immutable value: a revision raised by every
 * change, the global freeze flag, drained pools and endpoints, each service's {@link
 * ServiceControl}, the results of the latest request ids (for idempotent retries) and a counter for
 * ids.
 */
public record ControlState(
    long revision,
    boolean frozen,
    Set<String> drained,
    Map<String, ServiceControl> services,
    List<RequestOutcome> requests,
    long counter) {

  /** How many request ids are remembered for idempotent retries. */
  static final int MAX_REQUESTS = 1000;

  public static final ControlState INITIAL =
      new ControlState(0, false, Set.of(), Map.of(), List.of(), 0);

  /** The first result of one request id. */
  public record RequestOutcome(String requestId, CommandResult result) {}

  public ControlState {
    drained = Set.copyOf(drained);
    services = Map.copyOf(services);
    requests = List.copyOf(requests);
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
    return new ControlState(revision, frozen, drained, copy, requests, counter);
  }

  ControlState withFrozen(boolean f) {
    return new ControlState(revision, f, drained, services, requests, counter);
  }

  ControlState withDrained(Set<String> d) {
    return new ControlState(revision, frozen, d, services, requests, counter);
  }

  ControlState withRequest(String requestId, CommandResult result) {
    List<RequestOutcome> copy = new ArrayList<>(requests);
    copy.add(new RequestOutcome(requestId, result));
    if (copy.size() > MAX_REQUESTS) {
      copy = copy.subList(copy.size() - MAX_REQUESTS, copy.size());
    }
    return new ControlState(revision, frozen, drained, services, copy, counter);
  }

  ControlState nextRevision() {
    return new ControlState(revision + 1, frozen, drained, services, requests, counter);
  }

  /** The state with the id counter moved on (ids of ramps, drills and switch records). */
  ControlState withCounter(long c) {
    return new ControlState(revision, frozen, drained, services, requests, c);
  }
}
