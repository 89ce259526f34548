package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Health, check and probe settings: defaults and path-named validation errors. */
class HealthConfigTest {

  private static String config(String probes, String health, String endpoint) {
    return "probes: "
        + probes
        + "\npools:\n  web:\n    health: "
        + health
        + "\n    endpoints:\n      - "
        + endpoint
        + "\nzones:\n  - origin: example.com.\n"
        + "    soa: { mname: ns1.example.com., rname: hostmaster.example.com. }\n"
        + "    ns: [ns1.example.com.]\n"
        + "    services: [{ name: app, pools: [web] }]\n";
  }

  record Case(String probes, String health, String endpoint, String error) {}

  static Stream<Case> bad() {
    String ep = "{ name: a, address: 192.0.2.1 }";
    return Stream.of(
        new Case(
            "{}",
            "{ fullLink: { type: http, expectBodyRegex: '(' } }",
            ep,
            "pools.web.health.fullLink.expectBodyRegex: is not a valid regular expression"),
        new Case(
            "{}",
            "{ fullLink: { type: http, expectJsonPointer: db } }",
            ep,
            "pools.web.health.fullLink.expectJsonPointer: must be a JSON pointer"),
        new Case(
            "{}",
            "{ fullLink: { type: http, expectJsonValue: ok } }",
            ep,
            "pools.web.health.fullLink.expectJsonPointer: is required when expectJsonValue is set"),
        new Case(
            "{}",
            "{ heartbeat: { type: tcp, port: 80, expectBody: x } }",
            ep,
            "pools.web.health.heartbeat.expectBody: applies to http and https checks only"),
        new Case(
            "{}",
            "{ fullLink: { type: http, path: ready } }",
            ep,
            "pools.web.health.fullLink.path: must start with '/'"),
        new Case(
            "{}",
            "{ fullLink: { type: http, expectStatus: [99] } }",
            ep,
            "pools.web.health.fullLink.expectStatus[0]: must be 100..599, was 99"),
        new Case(
            "{}",
            "{ heartbeat: { type: icmp, port: 80 } }",
            ep,
            "pools.web.health.heartbeat.type: must be one of tcp, http, https, was \"icmp\""),
        new Case("{}", "{ attempts: 0 }", ep, "pools.web.health.attempts: must be 1..10, was 0"),
        new Case("{}", "{ fastRecheck: 0s }", ep, "pools.web.health.fastRecheck: must be positive"),
        new Case(
            "{}",
            "{ flapHoldDown: 10m, flapHoldDownMax: 5m }",
            ep,
            "pools.web.health.flapHoldDownMax: must not be shorter than flapHoldDown"),
        new Case(
            "{}",
            "{ fullLink: { type: http } }",
            "{ name: c, cname: lb.example.net. }",
            "pools.web.endpoints[0].health.fullLink.address: is required for a CNAME endpoint"),
        new Case(
            "{ canaries: [nope] }",
            "{}",
            ep,
            "probes.canaries[0]: must be host:port or an http(s):// URL, was 'nope'"),
        new Case("{ quorum: 0 }", "{}", ep, "probes.quorum: must be 1..1000, was 0"),
        new Case("{ vantage: 'a b' }", "{}", ep, "probes.vantage: must be 1..64 letters"),
        new Case("{ staleAfter: 0s }", "{}", ep, "probes.staleAfter: must be positive"));
  }

  @ParameterizedTest
  @MethodSource("bad")
  void rejectsNamingThePath(Case c) {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoader.parse(
                    config(c.probes(), c.health(), c.endpoint()), "t.yaml", Path.of(".")));
    assertTrue(e.getMessage().contains(c.error()), e.getMessage());
  }

  @Test
  void defaultsMatchTheDesign() throws Exception {
    HealthConfig h = HealthConfig.defaults();
    assertEquals(3, h.downAfter());
    assertEquals(2, h.upAfter());
    assertEquals(3, h.attempts());
    assertEquals(Duration.ofSeconds(1), h.fastRecheck());
    assertEquals(Duration.ofSeconds(60), h.cooldown());
    assertEquals(6, h.cooldownBreak());
    assertTrue(h.unchecked());
    ProbeConfig p = ProbeConfig.defaults();
    assertEquals(2, p.quorumOf(3));
    assertEquals(3, p.quorumOf(4));
    assertEquals(Duration.ofSeconds(90), p.staleAfter());
    SluiceConfig ok =
        ConfigLoader.parse(
            config(
                "{ canaries: ['192.0.2.1:443', 'https://example.net/health', '[::1]:53'] }",
                "{ fullLink: { type: https, address: lb.example.net, host: www.example.com } }",
                "{ name: c, cname: lb.example.net. }"),
            "t.yaml",
            Path.of("."));
    assertEquals(443, ok.pools().get("web").health().fullLink().effectivePort());
    assertEquals(CheckType.HTTPS, ok.pools().get("web").health().fullLink().type());
  }

  @Test
  void checkTypesAreReadInAnyCaseAndHttpIsTheDefault() throws Exception {
    SluiceConfig c =
        ConfigLoader.parse(
            config(
                "{}",
                "{ heartbeat: { type: TCP, port: 8080 }, fullLink: { path: /ready } }",
                "{ name: a, address: 192.0.2.1 }"),
            "t.yaml",
            Path.of("."));
    HealthConfig h = c.pools().get("web").health();
    assertEquals(CheckType.TCP, h.heartbeat().type());
    assertEquals(8080, h.heartbeat().effectivePort());
    assertEquals(CheckType.HTTP, h.fullLink().type());
    assertEquals(80, h.fullLink().effectivePort());
  }
}
