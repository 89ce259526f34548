package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The admin section: defaults, TLS, limits and token roles. */
class AdminConfigTest {
  private static final String HASH = "a".repeat(64);

  @Test
  void defaultsAreLoopbackPlainHttpWithLimits() throws Exception {
    AdminConfig a = ConfigLoaderTest.parse(ConfigLoaderTest.ZONE).admin();
    assertEquals("127.0.0.1", a.listen());
    assertEquals(8053, a.port());
    assertNull(a.tls());
    assertEquals(65_536, a.maxBodyBytes());
    assertEquals(10, a.authFailuresPerMinute());
    assertEquals(false, a.metricsPublic());
    assertEquals(a.tokens(), new AdminConfig(null, null, null, null).tokens());
    assertEquals(9000, a.withPort(9000).port());
  }

  @Test
  void readsTlsLimitsAndTheProbeRole() throws Exception {
    AdminConfig a =
        ConfigLoaderTest.parse(
                "admin:\n"
                    + "  tls: { certFile: admin.crt, keyFile: admin.key }\n"
                    + "  maxBodyBytes: 8192\n"
                    + "  authFailuresPerMinute: 3\n"
                    + "  metricsPublic: true\n"
                    + "  tokens: [{ name: tokyo, role: PROBE, sha256: "
                    + HASH
                    + " }]\n"
                    + ConfigLoaderTest.ZONE)
            .admin();
    assertEquals("admin.key", a.tls().keyFile());
    assertEquals(8192, a.maxBodyBytes());
    assertEquals(3, a.authFailuresPerMinute());
    assertEquals(true, a.metricsPublic());
    assertEquals("probe", a.tokens().get(0).role());
    assertEquals(8192, a.withPort(1).maxBodyBytes(), "a port override keeps the other settings");
  }

  @Test
  void badValuesAreNamedByPath() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoaderTest.parse(
                    "admin:\n"
                        + "  tls: { certFile: admin.crt }\n"
                        + "  maxBodyBytes: 10\n"
                        + "  authFailuresPerMinute: 0\n"
                        + ConfigLoaderTest.ZONE));
    assertEquals(
        List.of(
            "admin.maxBodyBytes: must be 1024..16777216, was 10",
            "admin.authFailuresPerMinute: must be 1..100000, was 0",
            "admin.tls.keyFile: is required"),
        e.problems().stream().map(p -> p.path() + ": " + p.message()).toList());
  }

  @Test
  void aLowerMaxAloneIsAcceptedAndCapsTheDefaultPerSource() throws Exception {
    AdminConfig a =
        ConfigLoaderTest.parse("admin:\n  connections: { max: 32 }\n" + ConfigLoaderTest.ZONE)
            .admin();
    assertEquals(32, a.connections().max());
    assertEquals(32, a.connections().perSource());
    assertEquals(64, AdminConfig.ConnectionLimits.defaults().perSource());
  }

  @Test
  void aNonLoopbackListenerNeedsTlsOrAnExplicitInsecureSetting() throws Exception {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoaderTest.parse(
                    "admin:\n"
                        + "  listen: 0.0.0.0\n"
                        + "  connections: { max: 10, perSource: 20, requestDeadline: 0s }\n"
                        + ConfigLoaderTest.ZONE));
    String m = e.getMessage();
    assertTrue(
        m.contains("admin.listen: '0.0.0.0' is not a loopback address and admin.tls is not set"),
        m);
    assertTrue(m.contains("admin.allowInsecureListen: true"), m);
    assertTrue(m.contains("admin.connections.perSource: must be 1..10, was 20"), m);
    assertTrue(m.contains("admin.connections.requestDeadline: must be more than 0"), m);
    for (String ok :
        List.of(
            "  listen: 0.0.0.0\n  allowInsecureListen: true\n",
            "  listen: 192.0.2.1\n  tls: { certFile: a.crt, keyFile: a.key }\n",
            "  listen: ::1\n")) {
      AdminConfig a = ConfigLoaderTest.parse("admin:\n" + ok + ConfigLoaderTest.ZONE).admin();
      assertEquals(256, a.connections().max(), ok);
    }
  }

  private static final String SERVICES =
      """
      pools:
        p: { endpoints: [ { name: a, address: 192.0.2.1 } ] }
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
          services:
            - { name: app, pools: [{ pool: p }] }
      """;

  @Test
  void scopedAndExpiringTokensAreReadAndCheckedAgainstTheConfiguration() throws Exception {
    AdminConfig a =
        ConfigLoaderTest.parse(
                "admin:\n  tokens:\n"
                    + "    - { name: old, role: operator, sha256: "
                    + HASH
                    + " }\n"
                    + "    - { name: team, role: operator, sha256: "
                    + HASH
                    + ", services: [APP.example.com], pools: [p],"
                    + " expires: '2027-01-31T00:00:00Z' }\n"
                    + SERVICES)
            .admin();
    assertNull(a.tokens().get(0).scope(), "a token written the old way is unlimited");
    assertNull(a.tokens().get(0).expiresAt());
    assertEquals(List.of("app.example.com."), a.tokens().get(1).scope().services());
    assertEquals(List.of("p"), a.tokens().get(1).scope().pools());
    assertEquals("2027-01-31T00:00:00Z", a.tokens().get(1).expiresAt().toString());

    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                ConfigLoaderTest.parse(
                    "admin:\n  tokens:\n"
                        + "    - { name: a, role: admin, sha256: "
                        + HASH
                        + ", services: [app.example.com.] }\n"
                        + "    - { name: b, role: operator, sha256: "
                        + HASH
                        + ", services: [nope.example.com.], pools: [q], expires: tomorrow }\n"
                        + SERVICES));
    assertEquals(
        List.of(
            "admin.tokens[1].expires: must be an ISO-8601 UTC time such as 2027-01-31T00:00:00Z,"
                + " was 'tomorrow'",
            "admin.tokens[0].services: only an operator token can be limited to services or pools"
                + " (role is 'admin': an admin changes the configuration, a viewer changes"
                + " nothing)",
            "admin.tokens[1].services[0]: unknown service 'nope.example.com.' (services:"
                + " [app.example.com.])",
            "admin.tokens[1].pools[0]: unknown pool 'q' (pools: [p])"),
        e.problems().stream().map(p -> p.path() + ": " + p.message()).toList());
  }
}
