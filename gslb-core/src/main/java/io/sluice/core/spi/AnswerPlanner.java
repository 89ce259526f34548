package io.sluice.core.spi;

import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.util.List;
import java.util.Set;

/**
 * What the DNS module asks for the answer of a GSLB service. Implementations read the current
 * snapshot once per call, never block and never take a lock.
 */
public interface AnswerPlanner {

  /**
   * Decides the answer of {@code service} (its absolute lower-case name) for {@code client} and the
   * asked address family.
   */
  Decision plan(String service, AddressFamily family, ClientInfo client);

  /**
   * Like {@link #plan(String, AddressFamily, ClientInfo)}, deciding from {@code snapshot}, the one
   * the DNS module read for this query and answers the rest of it from: services and zone data then
   * always come from the same configuration, even while a reload is published. Planners that keep
   * no state from the snapshot may ignore it.
   */
  default Decision plan(
      Snapshot snapshot, String service, AddressFamily family, ClientInfo client) {
    return plan(service, family, client);
  }

  /**
   * The TTL answers of {@code service} carry now (short while a shift runs), or -1 when unknown.
   * The DNS module caps the negative TTL of the service name's NODATA answers to it, so a resolver
   * never remembers "no such type" for longer than it remembers the addresses.
   */
  default long servedTtl(String service) {
    return -1;
  }

  /** Like {@link #servedTtl(String)}, from {@code snapshot} (see the snapshot form of plan). */
  default long servedTtl(Snapshot snapshot, String service) {
    return servedTtl(service);
  }

  /**
   * Every decision {@code service} can give for {@code family} in {@code snapshot}, whoever asks
   * (each client region, cohort and variant; ECS scopes aside). Signed zones sign each distinct
   * answer before the snapshot is published, so a query never waits for a signature; a planner that
   * cannot tell returns an empty list and its answers are signed on first use.
   */
  default List<Decision> decisions(Snapshot snapshot, String service, AddressFamily family) {
    return List.of();
  }

  /**
   * A planner deciding as this one does over {@code store}, that records nothing anywhere but in
   * {@code metrics}: no samples, no decision log, no listener on this planner's store. It is only
   * asked about {@code services}, so a health or traffic change in {@code store} derives fresh
   * state for those alone (asked about another service after such a change, it may answer as for an
   * unknown one). The DNS module warms its query path through it at start; null when the planner
   * cannot make one (then the warm-up asks no service).
   */
  default AnswerPlanner detached(SnapshotStore store, GslbMetrics metrics, Set<String> services) {
    return null;
  }
}
