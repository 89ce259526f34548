package io.sluice.probe.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.ProbeReport.Result;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ReportValidatorTest {
  private static final long NOW = 1_800_000_000_000L;
  private static final String YAML =
      """
      probes: { vantage: node-a, canaries: ["127.0.0.1:9"] }
      pools:
        p1:
          health: { fullLink: { type: http, port: 8080, path: /ready } }
          endpoints: [{ name: a, address: 127.0.0.1 }]
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
          services: [{ name: app, pools: [p1] }]
      """;

  private static ReportValidator validator() throws Exception {
    SluiceConfig c = ConfigLoader.parse(YAML, "t.yaml", Path.of("."));
    return new ReportValidator(c);
  }

  private static final Result OK = new Result("p1/a", "fullLink", true, 3.2, null);

  @Test
  void inAClusterTheNodeNameIsTheOwnVantage() throws Exception {
    SluiceConfig c =
        ConfigLoader.parse(
            YAML + "cluster: { node: fra-1, etcd: { endpoints: [\"http://127.0.0.1:2379\"] } }\n",
            "t.yaml",
            Path.of("."));
    ReportValidator v = new ReportValidator(c);
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> v.validate(new ProbeReport("fra-1", NOW, List.of(OK)), NOW));
    assertEquals("vantage: 'fra-1' is this node's own vantage name", e.getMessage());
    v.validate(new ProbeReport("node-a", NOW, List.of(OK)), NOW);
  }

  record Case(String name, ProbeReport report, String error) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> bad() {
    return Stream.of(
        new Case("no vantage", new ProbeReport(null, NOW, List.of(OK)), "vantage: must be 1..64"),
        new Case("bad vantage", new ProbeReport("a b", NOW, List.of(OK)), "vantage: must be"),
        new Case(
            "own name",
            new ProbeReport("node-a", NOW, List.of(OK)),
            "vantage: 'node-a' is this node's own"),
        new Case("no time", new ProbeReport("b", 0, List.of(OK)), "timeMillis: must be positive"),
        new Case(
            "future",
            new ProbeReport("b", NOW + 120_000, List.of(OK)),
            "timeMillis: is 120 s ahead"),
        new Case(
            "old", new ProbeReport("b", NOW - 100_000, List.of(OK)), "timeMillis: is 100 s old"),
        new Case(
            "unknown endpoint",
            new ProbeReport("b", NOW, List.of(OK, new Result("p1/zz", "fullLink", true, 1, null))),
            "results[1].endpoint: unknown endpoint 'p1/zz'"),
        new Case(
            "bad check",
            new ProbeReport("b", NOW, List.of(new Result("p1/a", "ping", true, 1, null))),
            "results[0].check: must be heartbeat, fullLink or canary, was 'ping'"),
        new Case(
            "unconfigured layer",
            new ProbeReport("b", NOW, List.of(new Result("p1/a", "heartbeat", true, 1, null))),
            "results[0].check: endpoint 'p1/a' has no heartbeat check"),
        new Case(
            "unknown canary",
            new ProbeReport("b", NOW, List.of(new Result("10.0.0.1:80", "canary", true, 1, null))),
            "results[0].endpoint: '10.0.0.1:80' is not a configured canary"),
        new Case(
            "negative rtt",
            new ProbeReport("b", NOW, List.of(new Result("p1/a", "fullLink", true, -1, null))),
            "results[0].rttMillis: must be a finite number >= 0, was -1.0"),
        new Case(
            "NaN rtt",
            new ProbeReport(
                "b", NOW, List.of(new Result("p1/a", "fullLink", false, Double.NaN, "x"))),
            "results[0].rttMillis"),
        new Case(
            "huge error",
            new ProbeReport(
                "b", NOW, List.of(new Result("p1/a", "fullLink", false, 1, "e".repeat(2000)))),
            "results[0].error: at most 1000 characters"));
  }

  @ParameterizedTest
  @MethodSource("bad")
  void rejectsNamingTheField(Case c) throws Exception {
    IllegalArgumentException e =
        assertThrows(IllegalArgumentException.class, () -> validator().validate(c.report(), NOW));
    assertEquals(true, e.getMessage().startsWith(c.error()), e.getMessage());
  }

  @Test
  void acceptsAGoodReport() throws Exception {
    validator()
        .validate(
            new ProbeReport(
                "agent-1",
                NOW - 5_000,
                List.of(OK, new Result("127.0.0.1:9", "canary", false, 2000, "timeout"))),
            NOW);
  }
}
