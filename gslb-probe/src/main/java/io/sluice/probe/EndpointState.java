package io.sluice.probe;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.HealthConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Opinion;
import io.sluice.probe.debounce.VantageTracker;
import io.sluice.probe.debounce.VerdictGate;
import io.sluice.probe.latency.LatencyWindow;
import io.sluice.probe.quorum.QuorumResult;
import java.util.LinkedHashMap;
import java.util.Map;

/** Everything the engine knows of one checked endpoint. Touched only on the probe thread. */
final class EndpointState {
  final String key;
  final String pool;
  final EndpointConfig endpoint;
  final HealthConfig health;
  final Map<String, VantageTracker> trackers = new LinkedHashMap<>();
  // What this node published to the cluster per vantage it holds, and when (probe clock, nanos).
  final Map<String, Shared> shared = new LinkedHashMap<>();
  final LatencyWindow latency = new LatencyWindow();
  final VerdictGate gate;
  ProbeTarget heartbeat;
  ProbeTarget fullLink;
  EndpointHealth published;
  boolean checkedOnce;
  // The votes (quorum summary) the published reason was written with.
  String votes;
  // The last combined votes, and when a result (local or from an agent) last came (wall clock).
  QuorumResult lastVotes;
  long lastResultMillis;
  long retryAtNanos;

  EndpointState(
      String key,
      String pool,
      EndpointConfig endpoint,
      HealthConfig health,
      VerdictGate gate,
      EndpointHealth published) {
    this.key = key;
    this.pool = pool;
    this.endpoint = endpoint;
    this.health = health;
    this.gate = gate;
    this.published = published;
  }

  /** One opinion this node published, and when. */
  record Shared(Opinion opinion, long atNanos) {}

  /** The check whose failures can make the endpoint down. */
  ProbeTarget deciding() {
    return fullLink != null ? fullLink : heartbeat;
  }

  VantageTracker tracker(String vantage) {
    return trackers.computeIfAbsent(
        vantage, v -> new VantageTracker(health.downAfter(), health.upAfter(), fullLink != null));
  }

  /** True when the endpoint's checks are the same under {@code other}'s configuration. */
  boolean sameChecks(EndpointConfig e, HealthConfig h) {
    return endpoint.equals(e) && health.equals(h);
  }
}
