package io.sluice.policy;

import io.sluice.core.config.Addresses;
import io.sluice.core.config.ChainStep;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.Problems;
import io.sluice.core.config.ResidencyConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ServicePoolConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.sample.SampleRing;
import io.sluice.core.spi.AddressFamily;
import io.sluice.policy.capacity.CapacitySelector;
import io.sluice.policy.geo.GeoSelector;
import io.sluice.policy.hash.RendezvousBalancer;
import io.sluice.policy.latency.LatencySelector;
import io.sluice.policy.priority.PrioritySelector;
import io.sluice.policy.residency.ResidencyRule;
import io.sluice.policy.topology.ClientTopology;
import io.sluice.policy.weighted.WeightedBalancer;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compiles a validated configuration into a {@link CompiledConfig}: names resolved to indexes, the
 * chains parsed into steps, the client topology (and GeoIP database) loaded. Reports the semantic
 * problems core validation cannot see with the same paths, and logs warnings.
 */
final class PlanCompiler {
  private static final Logger LOG = LoggerFactory.getLogger(PlanCompiler.class);

  // Counts compiles so tests can check that a reload compiles the chain exactly once.
  private static final AtomicLong COMPILATIONS = new AtomicLong();

  private PlanCompiler() {}

  static long compilations() {
    return COMPILATIONS.get();
  }

  static CompiledConfig compile(SluiceConfig config, String file) throws ConfigException {
    COMPILATIONS.incrementAndGet();
    Problems problems = new Problems(file);
    List<String> warnings = new ArrayList<>();
    RegionGraph graph = RegionGraph.of(config.regions());
    if (graph.size() > 63) {
      problems.add("regions", "at most 63 regions are supported, was " + graph.size());
      problems.throwIfAny();
    }
    Map<String, Integer> regionIndex = new HashMap<>();
    for (int i = 0; i < graph.size(); i++) {
      regionIndex.put(graph.name(i), i);
    }
    ClientTopology topology;
    try {
      topology = ClientTopology.build(config, regionIndex);
    } catch (IOException | RuntimeException e) {
      problems.add("topology.geoip.database", "cannot load the GeoIP database: " + e.getMessage());
      problems.throwIfAny();
      throw new IllegalStateException(e);
    }
    Map<String, CompiledService> services = new HashMap<>();
    Map<String, CompiledService> shadows = new HashMap<>();
    int logThreshold =
        config.observability().decisionLog().enabled()
            ? SampleRing.threshold(config.observability().decisionLog().sample())
            : 0;
    for (int z = 0; z < config.zones().size(); z++) {
      ZoneConfig zone = config.zones().get(z);
      for (int i = 0; i < zone.services().size(); i++) {
        String path = Problems.index(Problems.index("zones", z) + ".services", i);
        ServiceConfig svc = zone.services().get(i);
        int shadowThreshold =
            svc.shadow() == null ? 0 : SampleRing.threshold(svc.shadow().sample());
        CompiledService c =
            service(
                svc,
                zone.origin(),
                path,
                config,
                graph,
                problems,
                warnings,
                Math.max(shadowThreshold, logThreshold));
        if (c != null) {
          services.put(c.fqdn(), c);
        }
        if (svc.shadow() != null && !svc.shadow().chain().isEmpty()) {
          // The candidate is compiled as the same service serving the shadow chain; its problems
          // are named under shadow.
          CompiledService candidate =
              service(
                  svc.promoted(svc.shadow().chain()),
                  zone.origin(),
                  Problems.child(path, "shadow"),
                  config,
                  graph,
                  problems,
                  warnings,
                  0);
          if (candidate != null) {
            shadows.put(candidate.fqdn(), candidate);
          }
        }
      }
    }
    problems.throwIfAny();
    for (String w : warnings) {
      LOG.warn("{}: {}", file, w);
    }
    return new CompiledConfig(
        config,
        graph,
        topology,
        Map.copyOf(services),
        Map.copyOf(shadows),
        logThreshold,
        List.copyOf(warnings));
  }

  private static CompiledService service(
      ServiceConfig svc,
      String origin,
      String path,
      SluiceConfig config,
      RegionGraph graph,
      Problems problems,
      List<String> warnings,
      int sampleThreshold) {
    int n = svc.pools().size();
    if (n > 64) {
      problems.add(Problems.child(path, "pools"), "at most 64 pools per service, was " + n);
      return null;
    }
    List<String> names = new ArrayList<>();
    int[] regions = new int[n];
    long[] capacities = new long[n];
    int[] weights = new int[n];
    List<List<EndpointConfig>> endpoints = new ArrayList<>();
    String[][] keys = new String[n][];
    byte[][][] addresses = new byte[n][][];
    for (int p = 0; p < n; p++) {
      ServicePoolConfig sp = svc.pools().get(p);
      PoolConfig pool = config.pools().get(sp.pool());
      names.add(sp.pool());
      regions[p] = pool.region() == null ? -1 : graph.indexOf(pool.region());
      capacities[p] = pool.capacity() == null ? 0 : pool.capacity();
      weights[p] = sp.weight();
      endpoints.add(pool.endpoints());
      keys[p] = new String[pool.endpoints().size()];
      addresses[p] = new byte[pool.endpoints().size()][];
      for (int e = 0; e < pool.endpoints().size(); e++) {
        EndpointConfig ep = pool.endpoints().get(e);
        keys[p][e] = PoolConfig.endpointKey(sp.pool(), ep);
        addresses[p][e] = ep.addressBytes();
      }
    }
    PoolTable table = new PoolTable(List.copyOf(names), regions, capacities, weights);
    List<CompiledStep> steps = new ArrayList<>();
    Balancer balancer = null;
    int limit = svc.maxRecords();
    List<ChainStep> parsed = svc.steps();
    for (int i = 0; i < parsed.size(); i++) {
      ChainStep st = parsed.get(i);
      String sp = Problems.index(Problems.child(path, "chain"), i);
      switch (st.name()) {
        case "healthy" ->
            steps.add(new CompiledStep("healthy", CompiledStep.Kind.HEALTHY, null, null, null));
        case "residency" -> {
          ResidencyConfig rc = config.topology().residency().get(st.arg(null));
          ResidencyRule rule = ResidencyRule.compile(st.arg(null), rc, graph, table);
          steps.add(new CompiledStep(st.toString(), CompiledStep.Kind.RESIDENCY, rule, null, null));
        }
        case "geo" -> steps.add(select(st, GeoSelector.INSTANCE));
        case "priority" -> steps.add(select(st, PrioritySelector.INSTANCE));
        case "latency" -> steps.add(select(st, LatencySelector.INSTANCE));
        case "capacity" -> {
          boolean any = false;
          for (long c : capacities) {
            any |= c > 0;
          }
          if (!any) {
            problems.add(
                sp, "step 'capacity' needs a capacity on at least one of the service's pools");
          }
          steps.add(
              select(st, new CapacitySelector(st.intArg(CapacitySelector.DEFAULT_WATERMARK))));
        }
        case "weighted" -> {
          balancer =
              new WeightedBalancer(
                  st.arg("one").equals("mix")
                      ? WeightedBalancer.Style.MIX
                      : WeightedBalancer.Style.ONE);
          steps.add(
              new CompiledStep(st.toString(), CompiledStep.Kind.BALANCE, null, null, balancer));
        }
        case "hash" -> {
          RendezvousBalancer rb =
              RendezvousBalancer.of(
                  table.names(), capacities, st.intArg(RendezvousBalancer.DEFAULT_TOLERANCE));
          if (rb.degradedReason() != null) {
            warnings.add(sp + ": " + rb.degradedReason());
          }
          balancer = rb;
          steps.add(new CompiledStep(st.toString(), CompiledStep.Kind.BALANCE, null, null, rb));
        }
        case "limit" -> {
          limit = st.intArg(svc.maxRecords());
          steps.add(new CompiledStep(st.toString(), CompiledStep.Kind.LIMIT, null, null, null));
        }
        default -> problems.add(sp, "unknown step '" + st.name() + "'");
      }
    }
    List<List<byte[]>> lastResort = new ArrayList<>();
    for (AddressFamily f : AddressFamily.values()) {
      List<byte[]> out = new ArrayList<>();
      for (String a : svc.lastResort().addresses()) {
        byte[] b = Addresses.parse(a);
        if (b != null && b.length == f.length()) {
          out.add(b);
        }
      }
      lastResort.add(List.copyOf(out));
    }
    return new CompiledService(
        svc.fqdn(origin),
        svc,
        table,
        List.copyOf(steps),
        balancer,
        limit,
        List.copyOf(endpoints),
        keys,
        addresses,
        List.copyOf(lastResort),
        sampleThreshold);
  }

  private static CompiledStep select(ChainStep st, Selector s) {
    return new CompiledStep(st.toString(), CompiledStep.Kind.SELECT, null, s, null);
  }
}
