package io.sluice.admin.metrics;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.ProbeEvidence;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.ControlState;
import io.sluice.core.traffic.MaintenanceWindow;
import io.sluice.core.traffic.Pending;
import io.sluice.core.traffic.Ramp;
import io.sluice.core.traffic.ServiceControl;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The state gauges an alert needs right after a restart, computed at each scrape from the published
 * snapshot, the traffic controller's durable state and the probe engine's evidence, never on the
 * query path: each endpoint's verdict and vantage agreement, the age of its last probe result,
 * usable endpoints and drain per pool, freezes, ramps with their step, pending confirmations with
 * their age, paused ramps and drills, the TTL each service serves. Label sets follow the
 * configuration: a reload that removes a pool removes its series, one that adds a pool adds them.
 * Each new configuration also registers at zero the counters it implies ({@link
 * MicrometerGslbMetrics#prepare}), so an alert on their increase sees the first event.
 */
public final class StateMeters {
  private final SnapshotStore store;
  private final Supplier<ControlState> control;
  private final Supplier<Map<String, ProbeEvidence>> evidence;
  private final Ticker ticker;
  private final MicrometerGslbMetrics gslb;
  private SluiceConfig prepared;

  private final GaugeFamily verdict;
  private final GaugeFamily evidenceStale;
  private final GaugeFamily eligible;
  private final GaugeFamily agreeing;
  private final GaugeFamily resultAge;
  private final GaugeFamily poolEndpoints;
  private final GaugeFamily poolUsable;
  private final GaugeFamily poolDrained;
  private final GaugeFamily poolDrainedEndpoints;
  private final GaugeFamily poolRegion;
  private final GaugeFamily frozen;
  private final GaugeFamily frozenAll;
  private final GaugeFamily maintenance;
  private final GaugeFamily rampInProgress;
  private final GaugeFamily rampStep;
  private final GaugeFamily rampStepsPlanned;
  private final GaugeFamily rampPaused;
  private final GaugeFamily drill;
  private final GaugeFamily pending;
  private final GaugeFamily pendingAge;
  private final GaugeFamily crossRegionLimit;
  private final GaugeFamily ttl;

  private StateMeters(
      List<SeriesFamily> r,
      SnapshotStore store,
      Supplier<ControlState> control,
      Supplier<Map<String, ProbeEvidence>> evidence,
      Ticker ticker,
      MicrometerGslbMetrics gslb) {
    this.store = store;
    this.control = control;
    this.evidence = evidence;
    this.ticker = ticker;
    this.gslb = gslb;
    verdict =
        new GaugeFamily(
            r,
            "sluice_health_verdict",
            "1 for an endpoint's current verdict (UP, SUSPECT, DOWN, UNKNOWN), 0 for the others",
            "pool",
            "endpoint",
            "verdict");
    evidenceStale =
        new GaugeFamily(
            r,
            "sluice_health_evidence_stale",
            "1 while an endpoint's verdict rests on no fresh evidence (restored, not yet re-checked)",
            "pool",
            "endpoint");
    eligible =
        new GaugeFamily(
            r,
            "sluice_health_vantages_eligible",
            "Vantages whose votes count for an endpoint (fresh results, healthy probe path)",
            "pool",
            "endpoint");
    agreeing =
        new GaugeFamily(
            r,
            "sluice_health_vantages_agreeing",
            "Counting vantages whose opinion is the endpoint's current verdict",
            "pool",
            "endpoint");
    resultAge =
        new GaugeFamily(
            r,
            "sluice_probe_last_result_age_seconds",
            "Seconds since this node last got a check result for an endpoint",
            "pool",
            "endpoint");
    poolEndpoints =
        new GaugeFamily(r, "sluice_pool_endpoints", "Endpoints configured in a pool", "pool");
    poolUsable =
        new GaugeFamily(
            r,
            "sluice_pool_usable_endpoints",
            "Endpoints of a pool the policy may hand out: not down and not drained",
            "pool");
    poolDrained =
        new GaugeFamily(r, "sluice_pool_drained", "1 while an operator drains the pool", "pool");
    poolDrainedEndpoints =
        new GaugeFamily(
            r,
            "sluice_pool_drained_endpoints",
            "Endpoints of a pool drained one by one by an operator",
            "pool");
    poolRegion =
        new GaugeFamily(
            r,
            "sluice_pool_region",
            "Always 1: the region of each pool, to join on",
            "pool",
            "region");
    frozen =
        new GaugeFamily(
            r, "sluice_traffic_frozen", "1 while the service's automation is frozen", "service");
    frozenAll = new GaugeFamily(r, "sluice_traffic_frozen_all", "1 while every service is frozen");
    maintenance =
        new GaugeFamily(
            r,
            "sluice_maintenance_windows",
            "Maintenance windows by state: scheduled (waiting for their start) and active",
            "state");
    rampInProgress =
        new GaugeFamily(
            r,
            "sluice_traffic_ramp_in_progress",
            "1 for the kind (weights, move, failover, failback) of the ramp a service runs",
            "service",
            "kind");
    rampStep =
        new GaugeFamily(
            r,
            "sluice_traffic_ramp_step",
            "The step in effect of the service's ramp (1 = first), 0 without a ramp",
            "service");
    rampStepsPlanned =
        new GaugeFamily(
            r,
            "sluice_traffic_ramp_steps_planned",
            "How many steps the service's ramp has, 0 without a ramp",
            "service");
    rampPaused =
        new GaugeFamily(
            r,
            "sluice_traffic_ramp_paused",
            "1 while the service's ramp is paused by a failing gate",
            "service");
    drill =
        new GaugeFamily(
            r,
            "sluice_traffic_drill_in_progress",
            "1 while a drill runs on the service",
            "service");
    pending =
        new GaugeFamily(
            r,
            "sluice_traffic_pending",
            "1 for the kind (start, failback, step, resume) of what waits for an operator",
            "service",
            "kind");
    pendingAge =
        new GaugeFamily(
            r,
            "sluice_traffic_pending_age_seconds",
            "Seconds the service's pending confirmation has waited, 0 when none waits",
            "service");
    crossRegionLimit =
        new GaugeFamily(
            r,
            "sluice_policy_cross_region_limit_ratio",
            "A service's crossRegionLimit as a ratio (0..1), for services that set one",
            "service");
    ttl =
        new GaugeFamily(
            r,
            "sluice_dns_ttl_served_seconds",
            "TTL currently served for a service (lower while a shift runs)",
            "service");
  }

  /**
   * Registers the gauges in {@code metrics} and refreshes them before each scrape; {@code control}
   * is the traffic controller's durable state, {@code evidence} the probe engine's per endpoint.
   */
  public static StateMeters register(
      PrometheusMetrics metrics,
      SnapshotStore store,
      Supplier<ControlState> control,
      Supplier<Map<String, ProbeEvidence>> evidence,
      Ticker ticker) {
    StateMeters m =
        new StateMeters(metrics.families(), store, control, evidence, ticker, metrics.gslb());
    metrics.beforeScrape(m::refresh);
    // The first refresh registers every service's series at zero, seconds of work for 10 k
    // services: it runs beside the rest of the start instead of before the listeners open, and a
    // scrape meanwhile waits for it (refresh is synchronized), so no scrape sees a partial set.
    Thread first = new Thread(m::refresh, "sluice-meters-start");
    first.setDaemon(true);
    first.start();
    return m;
  }

  /** Recomputes every gauge from the current state. */
  public synchronized void refresh() {
    Snapshot s = store.current();
    SluiceConfig config = s.config();
    if (config != prepared) {
      gslb.prepare(config);
      prepared = config;
    }
    long now = ticker.currentTimeMillis();
    Set<String> drained = s.traffic().drained();
    Map<String, ProbeEvidence> ev = evidence.get();
    for (Map.Entry<String, PoolConfig> p : config.pools().entrySet()) {
      String pool = p.getKey();
      PoolConfig pc = p.getValue();
      int usable = 0;
      int drainedEndpoints = 0;
      for (EndpointConfig e : pc.endpoints()) {
        String key = PoolConfig.endpointKey(pool, e);
        EndpointHealth h = s.health().get(key);
        for (Verdict v : Verdict.values()) {
          verdict.set(h.verdict() == v, pool, key, v.name());
        }
        evidenceStale.set(h.stale(), pool, key);
        boolean endpointDrained = drained.contains(key);
        if (endpointDrained) {
          drainedEndpoints++;
        } else if (h.verdict().usable()) {
          usable++;
        }
        ProbeEvidence pe = ev.get(key);
        if (pe != null) {
          eligible.set(pe.vantagesEligible(), pool, key);
          agreeing.set(pe.vantagesAgreeing(), pool, key);
          resultAge.set(Math.max(0, now - pe.lastResultMillis()) / 1000.0, pool, key);
        }
      }
      poolEndpoints.set(pc.endpoints().size(), pool);
      poolUsable.set(usable, pool);
      poolDrained.set(drained.contains(pool), pool);
      poolDrainedEndpoints.set(drainedEndpoints, pool);
      poolRegion.set(1, pool, pc.region() == null ? "" : pc.region());
    }
    ControlState cs = control.get();
    frozenAll.set(cs.frozen());
    for (MaintenanceWindow.State st : MaintenanceWindow.State.values()) {
      maintenance.set(cs.maintenance().stream().filter(w -> w.state() == st).count(), st.label());
    }
    for (ZoneConfig z : config.zones()) {
      for (ServiceConfig svc : z.services()) {
        String name = svc.fqdn(z.origin());
        service(name, svc, cs.service(name), now);
        frozen.set(cs.service(name).frozen() || cs.maintenanceFreezes(name), name);
        Long shortTtl = s.traffic().plan(name).ttlOverride();
        ttl.set(shortTtl != null ? shortTtl : svc.ttl(), name);
      }
    }
    for (GaugeFamily f :
        new GaugeFamily[] {
          verdict,
          evidenceStale,
          eligible,
          agreeing,
          resultAge,
          poolEndpoints,
          poolUsable,
          poolDrained,
          poolDrainedEndpoints,
          poolRegion,
          frozen,
          frozenAll,
          maintenance,
          rampInProgress,
          rampStep,
          rampStepsPlanned,
          rampPaused,
          drill,
          pending,
          pendingAge,
          crossRegionLimit,
          ttl
        }) {
      f.sweep();
    }
  }

  private void service(String name, ServiceConfig cfg, ServiceControl sc, long now) {
    Ramp ramp = sc.ramp();
    for (Ramp.Kind k : Ramp.Kind.values()) {
      rampInProgress.set(ramp != null && ramp.kind() == k, name, k.wire());
    }
    rampStep.set(ramp == null ? 0 : ramp.index() + 1, name);
    rampStepsPlanned.set(ramp == null ? 0 : ramp.steps().size(), name);
    rampPaused.set(ramp != null && ramp.state() == Ramp.State.PAUSED, name);
    drill.set(sc.drill() != null, name);
    Pending p = sc.pending();
    for (Pending.Kind k : Pending.Kind.values()) {
      pending.set(p != null && p.kind() == k, name, k.wire());
    }
    pendingAge.set(p == null ? 0 : Math.max(0, now - p.sinceMillis()) / 1000.0, name);
    if (cfg.crossRegionLimit() != null) {
      crossRegionLimit.set(cfg.crossRegionLimit() / 100.0, name);
    }
  }
}
