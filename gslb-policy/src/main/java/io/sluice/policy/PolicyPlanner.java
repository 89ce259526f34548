package io.sluice.policy;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.HealthView;
import io.sluice.core.sample.SampleRing;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.spi.ShareEstimator;
import io.sluice.core.state.ConfigArtifacts;
import io.sluice.core.state.ConfigCompiler;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.state.TrafficState;
import io.sluice.policy.topology.ClientTopology;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy chain as the DNS module's {@link AnswerPlanner} and the admin API's {@link
 * DecisionExplainer}.
 *
 * <p>Two levels of precomputation keep the query path to a few array reads: a configuration is
 * compiled once per configuration ({@link CompiledConfig}: names to indexes, chains to steps, the
 * GeoIP database into prefix tries) by {@link #compiler()} before the configuration is published,
 * and travels in the snapshot with it; every health or traffic change derives each service's
 * outcomes per (family, cohort, region) ({@link ServiceState}) on the writer's thread before the
 * snapshot is published (a preparer), re-deriving only the services whose inputs changed; a query
 * that sees a snapshot published without it derives it itself. Per query the planner reads the
 * snapshot once, looks the client up in the trie, picks a variant by the client's stable hash and
 * returns a cached {@link Decision}: the same instance for the same answer within a snapshot
 * version.
 */
public final class PolicyPlanner
    implements AnswerPlanner, DecisionExplainer, ShareEstimator, ShadowReporter, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(PolicyPlanner.class);
  private static final Decision UNKNOWN = Decision.of(Decision.Outcome.UNKNOWN_SERVICE, 0);

  private final SnapshotStore store;
  private final GslbMetrics metrics;
  // Serves snapshots that carry no compiled chain (a store whose configuration was set by hand);
  // a configuration published through the ConfigPublisher brings its own, and then this stays
  // null so that no replaced chain stays reachable.
  private volatile CompiledConfig fallback;
  private volatile Live live;
  // The state derived for a snapshot about to be published (see prepare); live once it is.
  private volatile Live prepared;
  // Service states derived anew (not kept) after health and traffic changes (tests count them).
  private final LongAdder freshStates = new LongAdder();
  private final DecisionSampler sampler = new DecisionSampler(this::decideQuietly);
  // The services a detached planner (the warm-up's) derives after a health or traffic change: it
  // asks at most a few dozen, and deriving all of a large configuration's would cost most of its
  // time. Null for a serving planner, which derives them all and alone samples its answers.
  private final Set<String> derived;
  // The chain compiled for the last configuration explained from the history (ctl why).
  private volatile CompiledConfig explainedBefore;
  // The configuration the sampler was last set up for (writer threads only).
  private CompiledConfig sampledFor;

  /**
   * A planner over {@code store}, following every later snapshot. When the current snapshot was
   * built through {@link #compiler()} its compiled chain is used as is; otherwise the current
   * configuration is compiled now (reading the GeoIP database if one is configured).
   *
   * @throws ConfigException when the configuration is invalid for the policy chain
   */
  public PolicyPlanner(SnapshotStore store, GslbMetrics metrics) throws ConfigException {
    this(store, metrics, "config");
  }

  /** Like {@link #PolicyPlanner(SnapshotStore, GslbMetrics)}; errors name {@code file}. */
  public PolicyPlanner(SnapshotStore store, GslbMetrics metrics, String file)
      throws ConfigException {
    this(store, metrics, file, null);
    startSampling(live.compiled());
    store.addPreparer(this::prepare);
    store.addListener(this::refresh);
  }

  /**
   * A planner over {@code store}; a serving one ({@code derived} null) feeds shadow chains and the
   * decision log, the caller starts it; a detached one derives only {@code derived}.
   */
  private PolicyPlanner(SnapshotStore store, GslbMetrics metrics, String file, Set<String> derived)
      throws ConfigException {
    this.derived = derived;
    this.store = java.util.Objects.requireNonNull(store, "store");
    this.metrics = java.util.Objects.requireNonNull(metrics, "metrics (use GslbMetrics.NOOP)");
    Snapshot s = store.current();
    Generation g = published(s);
    if (g != null) {
      this.live = g.derived();
    } else {
      CompiledConfig c = PlanCompiler.compile(s.config(), file);
      this.fallback = c;
      this.live = Live.derive(s, c, derived);
    }
  }

  /**
   * A planner over {@code store} that decides as this one would for the same snapshot (a published
   * one shares its derived state and cached decisions) but samples nothing, writes no decision log
   * and records only into {@code metrics}: the DNS module's start-up warm-up asks it.
   */
  @Override
  public AnswerPlanner detached(SnapshotStore store, GslbMetrics metrics, Set<String> services) {
    try {
      return new PolicyPlanner(store, metrics, "config", Set.copyOf(services));
    } catch (ConfigException e) {
      // Only a configuration set without the publisher is compiled here, and it compiled before.
      LOG.debug("no detached planner: {}", e.getMessage());
      return null;
    }
  }

  /** Starts the sampler's thread once a configuration samples anything (shadow, decision log). */
  private void startSampling(CompiledConfig c) {
    sampledFor = c;
    boolean any = c.logThreshold() > 0;
    for (CompiledService svc : c.services().values()) {
      any |= svc.sampleThreshold() > 0;
    }
    if (any) {
      sampler.start();
    }
    sampler.retain(c);
  }

  /** Stops the sampler's thread and closes the decision log. */
  @Override
  public void close() {
    sampler.close();
  }

  /** Sampled answers dropped because the sampler's thread was behind (a metric). */
  public double droppedSamples() {
    return sampler.dropped();
  }

  /** Waits until every sampled answer so far was evaluated and logged (tests). */
  public void awaitSamples() {
    sampler.awaitIdle();
  }

  @Override
  public java.util.Optional<ShadowReport> shadow(String service) {
    return sampler.shadow(service);
  }

  /**
   * The policy module's share of building a configuration: compiles the chain (the only compile a
   * start or reload does) and derives every service's state from the health and traffic state being
   * served, so the first query after the swap finds it ready.
   */
  public static ConfigCompiler compiler() {
    return (config, source, running, out) -> {
      CompiledConfig c = PlanCompiler.compile(config, source);
      out.put(Generation.class, new Generation(c, Live.derive(running, c)));
    };
  }

  /** Warnings about the configuration compiled last, each prefixed with its config path. */
  public List<String> warnings() {
    return live.compiled().warnings();
  }

  /** Warnings about the policy chain built into {@code artifacts}, or none when it has none. */
  public static List<String> warnings(ConfigArtifacts artifacts) {
    Generation g = artifacts.get(Generation.class);
    return g == null ? List.of() : g.compiled().warnings();
  }

  /**
   * Checks the parts of {@code config} only the policy module understands (residency, step
   * arguments, GeoIP database) without serving it, for {@code sluice check}.
   *
   * @return warnings worth logging, each prefixed with its config path
   */
  public static List<String> check(SluiceConfig config, String file) throws ConfigException {
    return PlanCompiler.compile(config, file).warnings();
  }

  /**
   * How many service states this planner derived anew after health and traffic changes (a state
   * whose inputs did not change is kept); tests count the work of a change.
   */
  public long derivedStates() {
    return freshStates.sum();
  }

  /** How many times a policy chain was compiled in this process (tests count reload work). */
  public static long compilations() {
    return PlanCompiler.compilations();
  }

  /** The chain published with {@code s}, or null when the snapshot carries none for its config. */
  private static Generation published(Snapshot s) {
    Generation g = s.artifacts().get(Generation.class);
    return g != null && g.compiled().config() == s.config() ? g : null;
  }

  /**
   * Runs on the writer's thread after every published snapshot and derives its state ahead of the
   * queries. Only a configuration set without the publisher is compiled here.
   */
  private void refresh(Snapshot s) {
    CompiledConfig f = fallback;
    if (published(s) == null && (f == null || f.config() != s.config())) {
      try {
        fallback = PlanCompiler.compile(s.config(), "config");
      } catch (ConfigException e) {
        LOG.error("policy chain keeps the previous configuration: {}", e.getMessage());
        return;
      }
    }
    Live l = current(s);
    if (prepared == l) {
      // Adopted: nothing but the live state keeps it (nor, after a reload, the chain before).
      prepared = null;
    }
    CompiledConfig c = l.compiled();
    if (c != sampledFor) {
      startSampling(c);
    }
  }

  /**
   * The derived state for {@code s}. A health or traffic change is derived here at once, even on
   * the query path (it is cheap and makes a down pool disappear on the next query). A configuration
   * is never compiled here: a published one brings its compiled chain in the snapshot, and one set
   * by hand keeps the previous state until {@link #refresh} has compiled it.
   */
  private Live current(Snapshot s) {
    Live l = live;
    Generation g = published(s);
    CompiledConfig c = g != null ? g.compiled() : fallback;
    if (c == null || c.config() != s.config() || l.isFor(c, s)) {
      return l;
    }
    Live p = prepared;
    if (p != null && p.isFor(c, s)) {
      l = p;
    } else if (g != null && g.derived().isFor(c, s)) {
      l = g.derived();
    } else {
      // A detached planner (the warm-up's) derives afresh: its republished health is there to
      // profile the first fills of new states.
      Live keep = derived != null ? null : l.compiled == c ? l : g != null ? g.derived() : null;
      l = Live.derive(s, c, derived, keep);
      freshStates.add(l.fresh());
    }
    if (s.version() > store.current().version()) {
      // Asked about a snapshot not published yet (a preparer's question): queries still read the
      // one before, whose state stays the live one.
      prepared = l;
    } else {
      live = l;
    }
    return l;
  }

  /**
   * Derives the state of {@code next} on the writer's thread before it is published (a {@link
   * SnapshotStore#addPreparer preparer}), from the live state, so that no query derives it.
   */
  private void prepare(Snapshot next) {
    current(next);
  }

  @Override
  public long servedTtl(String service) {
    return servedTtl(store.current(), service);
  }

  @Override
  public long servedTtl(Snapshot snapshot, String service) {
    ServiceState st = current(snapshot).services.get(service);
    return st == null ? -1 : st.ttl();
  }

  /**
   * The shares clients of {@code service} get in {@code s}, read from the derived state the query
   * path uses (derived for {@code s} when it is not the current one). Client regions count equally
   * (the "no region" of unmapped clients too when no default region is configured).
   */
  @Override
  public Map<String, Double> shares(Snapshot s, String service) {
    CompiledConfig c = compiledFor(s);
    ServiceState st = c == null ? null : stateFor(s, c, service);
    return st == null ? null : st.expectedShares(0, regionSlots(s, c));
  }

  /** The shares per client region (and {@code (none)} for unmapped clients without a default). */
  @Override
  public Map<String, Map<String, Double>> sharesByRegion(Snapshot s, String service) {
    CompiledConfig c = compiledFor(s);
    ServiceState st = c == null ? null : stateFor(s, c, service);
    if (st == null) {
      return null;
    }
    Map<String, Map<String, Double>> out = new java.util.LinkedHashMap<>();
    int slots = regionSlots(s, c);
    for (int r = 0; r < slots; r++) {
      out.put(r < c.regions().size() ? c.regions().name(r) : "(none)", st.expectedShares(r, r + 1));
    }
    return out;
  }

  /** The compiled chain serving {@code s}, or null when it has not been compiled (yet). */
  private CompiledConfig compiledFor(Snapshot s) {
    Generation g = published(s);
    CompiledConfig c = g != null ? g.compiled() : fallback;
    return c != null && c.config() == s.config() ? c : null;
  }

  /** The state of {@code service} in {@code s}: the live one, or derived for another snapshot. */
  private ServiceState stateFor(Snapshot s, CompiledConfig c, String service) {
    Live l = live;
    if (l.isFor(c, s)) {
      return l.services.get(service);
    }
    CompiledService svc = c.services().get(service);
    return svc == null ? null : new ServiceState(svc, c, s);
  }

  /** The client regions shares average over: the configured ones, plus "none" without a default. */
  private static int regionSlots(Snapshot s, CompiledConfig c) {
    int regions = c.regions().size();
    boolean unmapped = regions == 0 || s.config().topology().defaultRegion() == null;
    return regions + (unmapped ? 1 : 0);
  }

  @Override
  public List<Decision> decisions(Snapshot s, String service, AddressFamily family) {
    CompiledConfig c = compiledFor(s);
    ServiceState st = c == null ? null : stateFor(s, c, service);
    if (st == null) {
      return List.of();
    }
    List<Decision> out = new ArrayList<>();
    Set<Answers> seen = Collections.newSetFromMap(new IdentityHashMap<>());
    for (Outcome[] byRegion : st.outcomes[family.ordinal()]) {
      for (Outcome o : byRegion) {
        Answers a = o.answers();
        if (seen.add(a)) {
          for (int v = 0; v < a.spread.variants(); v++) {
            out.add(a.decision(v, 0));
          }
        }
      }
    }
    return out;
  }

  @Override
  public Decision plan(String service, AddressFamily family, ClientInfo client) {
    return plan(store.current(), service, family, client);
  }

  @Override
  public Decision plan(Snapshot snapshot, String service, AddressFamily family, ClientInfo client) {
    Live l = current(snapshot);
    ServiceState st = l.services.get(service);
    if (st == null) {
      return UNKNOWN;
    }
    Decision d = decide(l, st, family, client, true);
    int threshold = st.service().sampleThreshold();
    if (threshold != 0 && derived == null) {
      // One draw from the event loop's own generator; the rest happens on the sampler's thread.
      int draw = ThreadLocalRandom.current().nextInt(1 << 24);
      if (draw < threshold) {
        sample(snapshot, l, st, family, client, d, draw);
      }
    }
    return d;
  }

  private void sample(
      Snapshot snapshot,
      Live l,
      ServiceState st,
      AddressFamily family,
      ClientInfo client,
      Decision d,
      int draw) {
    CompiledService shadow = l.compiled.shadows().get(st.service().fqdn());
    boolean shadowed =
        shadow != null && draw < SampleRing.threshold(st.service().config().shadow().sample());
    boolean logged = draw < l.compiled.logThreshold();
    sampler.offer(
        new DecisionSampler.Sample(
            snapshot,
            l,
            st,
            family.ordinal(),
            client,
            d,
            System.currentTimeMillis(),
            shadowed,
            logged));
  }

  /** The decision of {@code st} for {@code client}, not counted as served (the shadow chain). */
  private Decision decideQuietly(Live l, ServiceState st, int family, ClientInfo client) {
    return decide(l, st, AddressFamily.values()[family], client, false);
  }

  /** The decision for one client; {@code count} reports it to the metrics as a served answer. */
  private Decision decide(
      Live l, ServiceState st, AddressFamily family, ClientInfo client, boolean count) {
    byte[] address = client.address();
    ClientTopology topo = l.compiled.topology();
    int region = ClientTopology.region(topo.locate(address));
    int bucket = st.thresholds.length == 0 ? 0 : client.bucket();
    Outcome o = st.outcomes[family.ordinal()][st.cohort(bucket)][region];
    Answers a = o.answers();
    int scope = topo.scope(address, o.regionClass());
    int variant = 0;
    if (a.clientDependent) {
      variant = a.spread.pick(clientHash(client));
      scope = Math.max(scope, hashPrefix(client));
    }
    Decision d = a.decision(variant, scope);
    if (count) {
      report(st, o, a, variant, region);
    }
    return d;
  }

  private void report(ServiceState st, Outcome o, Answers a, int variant, int region) {
    if (metrics == GslbMetrics.NOOP) {
      return;
    }
    CompiledService svc = st.service();
    for (int p : a.pools(variant)) {
      metrics.serviceAnswer(
          svc.fqdn(), svc.pools().names().get(p), svc.pools().regions()[p] == region);
    }
    for (String e : o.events()) {
      metrics.policyEvent(svc.fqdn(), e);
    }
  }

  @Override
  public Map<String, List<Cidr>> geoIpSamples() {
    CompiledConfig c = current(store.current()).compiled;
    Map<String, List<Cidr>> out = new TreeMap<>();
    c.topology().geoIpSamples().forEach((region, nets) -> out.put(c.regions().name(region), nets));
    return out;
  }

  @Override
  public Explanation explain(String service, AddressFamily family, ClientInfo client) {
    return explain(current(store.current()), service, family, client);
  }

  /**
   * The explanation {@link #explain(String, AddressFamily, ClientInfo)} gives, on {@code s} (a
   * state the node served earlier, rebuilt from the history): the chain of its configuration is
   * compiled here unless it is the one serving now or the one explained last.
   */
  @Override
  public Explanation explain(Snapshot s, String service, AddressFamily family, ClientInfo client) {
    CompiledConfig c = compiledFor(s);
    if (c == null) {
      CompiledConfig running = live.compiled();
      CompiledConfig before = explainedBefore;
      if (running.config() == s.config()) {
        c = running;
      } else if (before != null && before.config() == s.config()) {
        c = before;
      } else {
        try {
          c = PlanCompiler.compile(s.config(), "configuration version of the history");
        } catch (ConfigException e) {
          throw new IllegalStateException("that configuration no longer compiles: " + e, e);
        }
        explainedBefore = c;
      }
    }
    return explain(Live.derive(s, c), service, family, client);
  }

  private Explanation explain(Live l, String service, AddressFamily family, ClientInfo client) {
    ServiceState st = l.services.get(service);
    String who = describe(client);
    if (st == null) {
      return new Explanation(service, who, "none", "none", List.of(), UNKNOWN);
    }
    ClientTopology topo = l.compiled.topology();
    long located = topo.locate(client.address());
    int region = ClientTopology.region(located);
    int bucket = client.bucket();
    ChainContext ctx =
        new ChainContext(
            st.service().pools(), l.compiled.regions(), region, st.rtt(region), st.load(), true);
    ctx.staleLoads(st.staleLoads());
    ChainResult r = ChainEvaluator.evaluate(st.service(), st, family.ordinal(), bucket, ctx);
    List<Step> steps = new ArrayList<>(r.steps());
    Answers a = st.answers(family.ordinal(), r, ctx);
    long hash = clientHash(client);
    int variant = a.clientDependent ? a.spread.pick(hash) : 0;
    String balance = r.lastResort() ? "" : a.spread.describe();
    String balanceStep = st.service().balancer() == null ? "limit" : balancerName(st);
    steps.add(
        new Step(
            balanceStep,
            st.service().pools().names(r.pools()),
            a.spread.variants() == 0 ? List.of() : decisionPools(st, a, variant),
            balance
                + "; client bucket "
                + bucket
                + (a.clientDependent
                    ? ", hash of /"
                        + hashPrefix(client)
                        + " picks variant "
                        + variant
                        + " of "
                        + a.spread.variants()
                    : ", the answer does not depend on the client hash")));
    // Explaining is not serving: the decision is not counted as an answer or a policy event.
    Decision d = decide(l, st, family, client, false);
    return new Explanation(
        service,
        who,
        l.compiled.regions().name(region),
        ClientTopology.source(located).label() + " (/" + ClientTopology.depth(located) + ")",
        List.copyOf(steps),
        d);
  }

  private static String balancerName(ServiceState st) {
    for (CompiledStep s : st.service().steps()) {
      if (s.kind() == CompiledStep.Kind.BALANCE) {
        return s.text();
      }
    }
    return "limit";
  }

  private static List<String> decisionPools(ServiceState st, Answers a, int variant) {
    List<String> out = new ArrayList<>();
    for (int p : a.pools(variant)) {
      out.add(st.service().pools().names().get(p));
    }
    return List.copyOf(out);
  }

  private static String describe(ClientInfo c) {
    try {
      return InetAddress.getByAddress(c.address()).getHostAddress()
          + "/"
          + c.sourcePrefix()
          + (c.fromEcs() ? " (ECS)" : " (resolver)");
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bad client address length " + c.address().length, e);
    }
  }

  /** The prefix the client hash covers: the client subnet, at most /24 (IPv4) or /56 (IPv6). */
  static int hashPrefix(ClientInfo c) {
    return Math.min(c.sourcePrefix(), c.address().length == 4 ? 24 : 56);
  }

  /**
   * A stable 64-bit hash of the client subnet (the bits {@link #hashPrefix} covers), the same on
   * every node and for every resolver carrying the same ECS subnet.
   */
  static long clientHash(ClientInfo c) {
    byte[] a = c.address();
    int bits = hashPrefix(c);
    long h = 0x9e3779b97f4a7c15L ^ bits;
    int full = bits >>> 3;
    for (int i = 0; i < full; i++) {
      h = (h ^ (a[i] & 0xff)) * 0x100000001b3L;
    }
    int rest = bits & 7;
    if (rest != 0) {
      h = (h ^ (a[full] & (0xff << (8 - rest)) & 0xff)) * 0x100000001b3L;
    }
    h = (h ^ (h >>> 30)) * 0xbf58476d1ce4e5b9L;
    h = (h ^ (h >>> 27)) * 0x94d049bb133111ebL;
    return h ^ (h >>> 31);
  }

  /**
   * Every service's derived state for one compiled chain and one health and traffic state (the only
   * parts of a snapshot it depends on, so it stays valid across snapshot versions that change
   * neither).
   */
  record Live(
      CompiledConfig compiled,
      HealthView health,
      TrafficState traffic,
      Map<String, ServiceState> services,
      int fresh) {

    static Live derive(Snapshot s, CompiledConfig c) {
      return derive(s, c, null);
    }

    /** The state of the services named in {@code only} (all of them when null). */
    static Live derive(Snapshot s, CompiledConfig c, Set<String> only) {
      return derive(s, c, only, null);
    }

    /**
     * Like {@link #derive(Snapshot, CompiledConfig, Set)}, keeping each service state of {@code
     * previous} (when derived for the same chain) whose inputs did not change, with the decisions
     * it has cached: a health change of one pool re-derives the services that use it.
     */
    static Live derive(Snapshot s, CompiledConfig c, Set<String> only, Live previous) {
      Map<String, ServiceState> before =
          previous != null && previous.compiled == c ? previous.services : Map.of();
      Map<String, ServiceState> services = new HashMap<>();
      int fresh = 0;
      for (String name : only == null ? c.services().keySet() : only) {
        CompiledService svc = c.services().get(name);
        if (svc != null) {
          ServiceState was = before.get(name);
          ServiceState st = state(svc, c, s, was);
          services.put(name, st);
          fresh += st == was ? 0 : 1;
        }
      }
      return new Live(c, s.health(), s.traffic(), services, fresh);
    }

    private static ServiceState state(
        CompiledService svc, CompiledConfig c, Snapshot s, ServiceState before) {
      return before != null && before.sameInputs(c, s) ? before : new ServiceState(svc, c, s);
    }

    boolean isFor(CompiledConfig c, Snapshot s) {
      return compiled == c && health == s.health() && traffic == s.traffic();
    }
  }

  /** The policy chain built for one configuration, published inside its snapshot. */
  record Generation(CompiledConfig compiled, Live derived) {}
}
