package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The {@code observability} section and a service's {@code shadow}: defaults and every problem. */
class ObservabilityConfigTest {
  private static final String POOLS =
      """
      pools:
        p1: { endpoints: [ { name: a, address: 192.0.2.1 } ] }
      """;

  private static String zone(String shadow) {
    return POOLS
        + """
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            services:
              - name: app
                pools: [p1]
                chain: [healthy, weighted]
        """
        + (shadow == null ? "" : "        shadow: " + shadow + "\n");
  }

  private static SluiceConfig parse(String yaml) throws ConfigException {
    return ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
  }

  @Test
  void historyIsOnAndTheDecisionLogDnstapAndShadowsOffByDefault() throws Exception {
    SluiceConfig c = parse(zone(null));
    assertTrue(c.observability().history().enabled());
    assertEquals(10_000, c.observability().history().maxEntries());
    assertEquals(Duration.ofDays(7), c.observability().history().maxAge());
    assertFalse(c.observability().decisionLog().enabled());
    assertFalse(c.observability().dnstap().enabled());
    assertNull(c.services().get(0).shadow());
    SluiceConfig s = parse(zone("{ chain: [healthy, geo] }"));
    assertEquals(List.of("healthy", "geo"), s.services().get(0).shadow().chain());
    assertEquals(0.01, s.services().get(0).shadow().sample());
  }

  @Test
  void everyProblemIsReportedWithItsPath() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                parse(
                    """
                    observability:
                      history: { maxEntries: 1, maxAge: 10s }
                      decisionLog: { file: "", sample: 2 }
                      dnstap: { queue: 1 }
                    """
                        + zone("{ chain: [geo, healthy], sample: 0 }")));
    String m = e.getMessage();
    for (String expected :
        List.of(
            "observability.history.maxEntries",
            "observability.history.maxAge",
            "observability.decisionLog.file",
            "observability.decisionLog.sample",
            "observability.dnstap.queue",
            "zones[0].services[0].shadow.sample",
            "zones[0].services[0].shadow.chain[0]: the first step must be 'healthy'")) {
      assertTrue(m.contains(expected), expected + " in " + m);
    }
  }
}
