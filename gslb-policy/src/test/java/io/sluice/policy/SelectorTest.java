package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.config.GeoPoint;
import io.sluice.core.config.RegionConfig;
import io.sluice.policy.capacity.CapacitySelector;
import io.sluice.policy.geo.GeoSelector;
import io.sluice.policy.latency.LatencySelector;
import io.sluice.policy.priority.PrioritySelector;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Table-driven tests of each selector on its own: candidates in, pools out. */
class SelectorTest {
  static final NaN N = new NaN();

  /** Marker for a missing value in the tables. */
  record NaN() {}

  // Pools: 0 a1 (a), 1 a2 (a), 2 b1 (b), 3 c1 (c). Regions a, b, c; b is nearest to a by proximity;
  // c has no proximity list and lies nearer to b than to a.
  static final PoolTable POOLS =
      new PoolTable(
          List.of("a1", "a2", "b1", "c1"),
          new int[] {0, 0, 1, 2},
          new long[] {100, 100, 100, 0},
          new int[] {1, 1, 1, 1});
  static final RegionGraph GRAPH;

  static {
    Map<String, RegionConfig> r = new LinkedHashMap<>();
    r.put("a", new RegionConfig(new GeoPoint(0.0, 0.0), List.of("b")));
    r.put("b", new RegionConfig(new GeoPoint(0.0, 50.0), List.of()));
    r.put("c", new RegionConfig(new GeoPoint(0.0, 60.0), List.of()));
    GRAPH = RegionGraph.of(r);
  }

  record Case(
      String name, Selector s, int region, long in, double[] rtt, double[] load, long want) {}

  static double[] d(Object... v) {
    double[] out = new double[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = v[i] instanceof NaN ? Double.NaN : ((Number) v[i]).doubleValue();
    }
    return out;
  }

  static Stream<Arguments> cases() {
    double[] none = d(N, N, N, N);
    CapacitySelector cap = new CapacitySelector(80);
    return Stream.of(
            new Case("geo own region", GeoSelector.INSTANCE, 0, 0b1111, none, none, 0b0011),
            new Case("geo proximity next", GeoSelector.INSTANCE, 0, 0b1100, none, none, 0b0100),
            new Case("geo distance from c", GeoSelector.INSTANCE, 2, 0b0111, none, none, 0b0100),
            new Case("geo no region", GeoSelector.INSTANCE, 3, 0b1011, none, none, 0b1011),
            new Case("priority first", PrioritySelector.INSTANCE, 0, 0b1010, none, none, 0b0010),
            new Case(
                "latency lowest",
                LatencySelector.INSTANCE,
                0,
                0b1111,
                d(30, 20, 5, 9),
                none,
                0b0100),
            new Case(
                "latency tie", LatencySelector.INSTANCE, 0, 0b0011, d(7, 7, 5, 9), none, 0b0011),
            new Case(
                "latency stale -> geo",
                LatencySelector.INSTANCE,
                0,
                0b1111,
                d(30, N, 5, 9),
                none,
                0b0011),
            new Case("capacity headroom", cap, 0, 0b0011, none, d(90, 10, 0, 0), 0b0010),
            new Case("capacity at watermark", cap, 0, 0b0011, none, d(80, 79.9, 0, 0), 0b0010),
            new Case("capacity overflow nearest", cap, 0, 0b0011, none, d(90, 95, 10, 0), 0b0100),
            new Case("capacity unknown load", cap, 0, 0b0011, none, d(N, 95, 10, 0), 0b0001),
            new Case("capacity all full", cap, 0, 0b0111, none, d(90, 95, 99, N), 0b1000))
        .map(c -> Arguments.of(c.name(), c));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void selects(String name, Case c) {
    ChainContext ctx = new ChainContext(POOLS, GRAPH, c.region(), c.rtt(), c.load(), true);
    ctx.redLine(0b1111);
    assertEquals(Long.toBinaryString(c.want()), Long.toBinaryString(c.s().select(c.in(), ctx)));
  }
}
