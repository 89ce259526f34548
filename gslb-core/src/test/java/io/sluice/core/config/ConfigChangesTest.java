package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The reload summary: what differs between two configurations, by name. */
class ConfigChangesTest {
  private static final String A = "a".repeat(64);
  private static final String B = "b".repeat(64);

  private static SluiceConfig config(String tokens, String zones) throws ConfigException {
    return ConfigLoader.parse(
        """
        admin:
          tokens:
        %s
        regions: { eu: {} }
        pools:
          p: { region: eu, endpoints: [ { name: a, address: 192.0.2.1 } ] }
        zones:
        %s
        """
            .formatted(tokens, zones),
        "t.yaml",
        Path.of("."));
  }

  private static String zone(String origin, String services) {
    return """
          - origin: %s
            soa: { mname: ns1.%s, rname: h.%s }
            ns: [ns1.%s]
            services:
        %s
        """
        .formatted(origin, origin, origin, origin, services);
  }

  @Test
  void namesTokensWithRolesAndServicesByFullName() throws Exception {
    SluiceConfig before =
        config(
            "    - { name: ops, role: admin, sha256: %s }\n    - { name: view, role: viewer, sha256: %s }"
                .formatted(A, B),
            zone("a.test.", "      - { name: app, pools: [{ pool: p }] }")
                + zone("b.test.", "      - { name: x, pools: [{ pool: p }] }"));
    SluiceConfig after =
        config(
            "    - { name: ops, role: operator, sha256: %s }\n    - { name: new, role: probe, sha256: %s }"
                .formatted(A, B),
            zone("a.test.", "      - { name: app, ttl: 10, pools: [{ pool: p }] }")
                + zone("c.test.", "      - { name: y, pools: [{ pool: p }] }"));
    ConfigChanges c = ConfigChanges.between(before, after);
    assertEquals(List.of("new (probe)"), c.tokens().added());
    assertEquals(List.of("view (viewer)"), c.tokens().removed());
    assertEquals(List.of("ops (admin -> operator)"), c.tokens().changed());
    assertEquals(List.of("c.test."), c.zones().added());
    assertEquals(List.of("b.test."), c.zones().removed());
    assertEquals(List.of(), c.zones().changed());
    assertEquals(List.of("y.c.test."), c.services().added());
    assertEquals(List.of("x.b.test."), c.services().removed());
    assertEquals(List.of("app.a.test."), c.services().changed());
    assertTrue(c.summary().contains("tokens removed: view (viewer)"), c.summary());
    assertTrue(ConfigChanges.between(after, after).isEmpty());
    assertEquals("no changes", ConfigChanges.between(after, after).summary());
  }

  @Test
  void namesAChangedTokenScopeOrExpiry() throws Exception {
    String zones = zone("a.test.", "      - { name: app, pools: [{ pool: p }] }");
    SluiceConfig before =
        config(
            ("    - { name: team, role: operator, sha256: %s }\n"
                    + "    - { name: temp, role: operator, sha256: %s }")
                .formatted(A, B),
            zones);
    SluiceConfig after =
        config(
            ("    - { name: team, role: operator, sha256: %s, services: [app.a.test] }\n"
                    + "    - { name: temp, role: operator, sha256: %s,"
                    + " expires: '2027-01-01T00:00:00Z' }")
                .formatted(A, B),
            zones);
    assertEquals(
        List.of(
            "team (scope services [app.a.test.], pools [])", "temp (expires 2027-01-01T00:00:00Z)"),
        ConfigChanges.between(before, after).tokens().changed());
  }
}
