package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {

  static final String ZONE =
      """
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
      """;

  static SluiceConfig parse(String yaml) throws ConfigException {
    return ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
  }

  @Test
  void aConfigurationOfSeventyThousandServicesIsRead() throws Exception {
    // About 3.6 M characters: more than the YAML parser's default limit of 3 Mi code points.
    StringBuilder yaml =
        new StringBuilder(
            """
            pools:
              p1: { endpoints: [ { address: 192.0.2.1 } ] }
            """);
    yaml.append(ZONE).append("    services:\n");
    for (int i = 0; i < 70_000; i++) {
      yaml.append("      - { name: service-").append(i).append(", pools: [p1], ttl: 30 }\n");
    }
    assertTrue(yaml.length() > 3 << 20, "longer than the parser's default limit");
    SluiceConfig c = parse(yaml.toString());
    assertEquals(70_000, c.zones().get(0).services().size());
    assertEquals("service-69999", c.zones().get(0).services().get(69_999).name());
  }

  @Test
  void bindReadsWhatAFileNamesWithoutCheckingItsValues() {
    String yaml =
        """
        zones:
          - origin: example.com.
            file: zones/example.com.zone
            ttl: -5
        """;
    // The values are wrong (no SOA, a negative TTL): read reports them, bind does not look.
    assertFalse(ConfigLoader.read(yaml, "test.yaml", Path.of("/etc/sluice")).problems().isEmpty());
    SluiceConfig bound = ConfigLoader.bind(yaml, Path.of("/etc/sluice"));
    assertEquals("zones/example.com.zone", bound.zones().get(0).file());
    assertEquals(Path.of("/etc/sluice"), bound.baseDir());
    assertNull(ConfigLoader.bind("zones: [ {origin: ", Path.of(".")));
    assertNull(ConfigLoader.bind("zones: 5", Path.of(".")));
  }

  @Test
  void aBuilderCopyKeepsEverySectionItDoesNotReplace() throws Exception {
    SluiceConfig example = ConfigLoader.load(Path.of("..", "config", "sluice.yaml"));
    assertEquals(example, example.toBuilder().build());
    SluiceConfig moved = example.toBuilder().stateDir("elsewhere").build();
    assertEquals("elsewhere", moved.stateDir());
    assertEquals(example, moved.toBuilder().stateDir(example.stateDir()).build());
    // Sections never set get the defaults the YAML loader gives a file that leaves them out.
    SluiceConfig bare = SluiceConfig.defaults();
    SluiceConfig parsed = parse(ZONE);
    assertEquals(parsed.dns(), bare.dns());
    assertEquals(parsed.probes(), bare.probes());
    assertEquals(parsed.notifications(), bare.notifications());
    assertEquals(parsed.observability(), bare.observability());
    assertEquals(parsed.stateDir(), bare.stateDir());
    assertNull(bare.cluster());
  }

  @Test
  void minimalConfigGetsDefaults() throws Exception {
    SluiceConfig c = parse(ZONE);
    assertEquals(5353, c.dns().port());
    assertEquals(1232, c.dns().udpPayloadSize());
    assertEquals(30_000, c.dns().warmupQueries());
    assertEquals(Duration.ofSeconds(10), c.dns().tcpIdleTimeout());
    assertEquals("example.com.", c.zones().get(0).origin());
    assertEquals(300L, c.zones().get(0).soa().minimum());
    assertEquals("127.0.0.1", c.admin().listen());
  }

  @Test
  void shippedExampleIsValid() throws Exception {
    Path example = Path.of("..", "config", "sluice.yaml");
    SluiceConfig c = ConfigLoader.load(example);
    assertTrue(c.zones().size() >= 2);
    assertTrue(c.services().size() >= 1);
  }

  @Test
  void nsidIsTextOrHexAndOffByDefault() throws Exception {
    assertNull(parse(ZONE).dns().nsidBytes());
    assertArrayEquals(
        "ns1-fra".getBytes(StandardCharsets.UTF_8),
        parse("dns: { nsid: ns1-fra }\n" + ZONE).dns().nsidBytes());
    assertArrayEquals(
        new byte[] {0x01, (byte) 0xab},
        parse("dns: { nsid: \"0x01AB\" }\n" + ZONE).dns().nsidBytes());
  }

  @Test
  void rateLimitingAndCookiesAreOffByDefault() throws Exception {
    DnsConfig dns = parse(ZONE).dns();
    assertFalse(dns.rrl().enabled());
    assertFalse(dns.cookies().enabled());
    assertEquals(200, dns.rrl().responsesPerSecond());
    assertEquals(Duration.ofSeconds(15), dns.rrl().window());
    assertEquals(2, dns.rrl().slip());
    assertEquals("cookie.secret", dns.cookies().secretFile());
    // Writing a section turns it on; enabled: false is the off-switch.
    DnsConfig written =
        parse("dns: { rrl: { slip: 1 }, cookies: { require: true } }\n" + ZONE).dns();
    assertTrue(written.rrl().enabled());
    assertTrue(written.cookies().enabled());
    DnsConfig off =
        parse("dns: { rrl: { enabled: false }, cookies: { enabled: false } }\n" + ZONE).dns();
    assertFalse(off.rrl().enabled());
    assertFalse(off.cookies().enabled());
  }

  @Test
  void everyRateLimitProblemIsNamedAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                parse(
                    "dns:\n  rrl: { enabled: true, responsesPerSecond: 0, nxdomainsPerSecond:"
                        + " 20000, window: 1500ms, slip: 11, ipv4PrefixLength: 33,"
                        + " ipv6PrefixLength: 8, tableSize: 1000 }\n"
                        + "  cookies: { enabled: false, require: true, secretFile: a,"
                        + " previousSecretFile: a }\n"
                        + ZONE));
    String m = e.getMessage();
    for (String expected :
        List.of(
            "dns.rrl.responsesPerSecond: must be 1..10000, was 0",
            "dns.rrl.nxdomainsPerSecond: must be 1..10000, was 20000",
            "dns.rrl.window: must be whole seconds from 1s to 60s",
            "dns.rrl.slip: must be 0..10, was 11",
            "dns.rrl.ipv4PrefixLength: must be 8..32, was 33",
            "dns.rrl.ipv6PrefixLength: must be 16..128, was 8",
            "dns.rrl.tableSize: must be a power of two, was 1000",
            "dns.rrl.tableSize: must be 1024..16777216, was 1000",
            "dns.cookies.require: needs enabled: true",
            "dns.cookies.previousSecretFile: must differ from secretFile")) {
      assertTrue(m.contains(expected), expected + " not in:\n" + m);
    }
  }

  @Test
  void durationsAcceptUnits() throws Exception {
    SluiceConfig c = parse("dns: { tcpIdleTimeout: 500ms }\n" + ZONE);
    assertEquals(Duration.ofMillis(500), c.dns().tcpIdleTimeout());
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("dns: { port: 70000 }\n" + ZONE, "dns.port: must be 0..65535, was 70000"),
        Arguments.of("dns: { prot: 53 }\n" + ZONE, "dns: unknown key 'prot'"),
        Arguments.of("dns: { nsid: \"0xabc\" }\n" + ZONE, "dns.nsid: hex form must be 0x"),
        Arguments.of("dns: { nsid: \"0xzz\" }\n" + ZONE, "dns.nsid: hex form must be 0x"),
        Arguments.of("dns: { nsid: \"\" }\n" + ZONE, "dns.nsid: must not be empty"),
        Arguments.of(
            "dns: { nsid: \"" + "n".repeat(129) + "\" }\n" + ZONE,
            "dns.nsid: must be at most 128 bytes, was 129"),
        Arguments.of("dns: { port: fifty }\n" + ZONE, "dns.port: expected a whole number"),
        Arguments.of("dns: { listen: [localhost] }\n" + ZONE, "dns.listen[0]: must be an IPv4"),
        Arguments.of(
            "dns: { tcpIdleTimeout: soon }\n" + ZONE, "dns.tcpIdleTimeout: must be a duration"),
        Arguments.of(
            "dns: { udpPayloadSize: 100 }\n" + ZONE, "dns.udpPayloadSize: must be 512..65535"),
        Arguments.of(
            "dns: { warmupQueries: -1 }\n" + ZONE, "dns.warmupQueries: must be 0..10000000"),
        Arguments.of("zones: []\n", "zones: at least one zone is required"),
        Arguments.of(
            """
            zones:
              - origin: example.com.
                ns: [ns1.example.com.]
            """,
            "zones[0].soa: is required"),
        Arguments.of(
            ZONE + "    records:\n      - { name: www, type: A, ttl: -1, data: 192.0.2.1 }\n",
            "zones[0].records[0].ttl: must be 0..2147483647, was -1"),
        Arguments.of(
            ZONE + "    records:\n      - { name: www, type: BOGUS, data: x }\n",
            "zones[0].records[0].type: unsupported record type 'BOGUS'"),
        Arguments.of(
            ZONE + "    records:\n      - { name: www.other.org., type: A, data: 192.0.2.1 }\n",
            "zones[0].records[0].name: 'www.other.org.' is outside the zone"),
        Arguments.of(
            ZONE + "    services:\n      - { name: app, pools: [nope] }\n",
            "zones[0].services[0].pools[0].pool: unknown pool 'nope'"),
        Arguments.of(
            "pools:\n  p1:\n    endpoints: [{ address: 192.0.2.1 }]\n"
                + ZONE
                + "    services:\n      - { name: app, pools: [{ pool: p1, weight: 0 }] }\n",
            "zones[0].services[0].pools: weights are all zero"),
        Arguments.of(
            "pools:\n  p1:\n    endpoints: [{ address: 192.0.2.999 }]\n" + ZONE,
            "pools.p1.endpoints[0].address: must be an IP address"),
        Arguments.of(
            "topology:\n  networks: [{ cidr: 10.0.0.1/8, region: x }]\n" + ZONE,
            "topology.networks[0].cidr: has host bits set"),
        Arguments.of(
            "admin: { tokens: [{ name: a, role: root, sha256: abc }] }\n" + ZONE,
            "admin.tokens[0].role: must be one of viewer, operator, admin"),
        Arguments.of(
            ZONE + "    services:\n      - { name: bücher, pools: [{ pool: p1 }] }\n",
            "zones[0].services[0].name: must be printable ASCII without spaces (write an"
                + " internationalized name in its xn-- form, here 'xn--bcher-kva.example.com.')"),
        Arguments.of(
            ZONE
                + "    records:\n      - { name: www, type: A, ttl: 60, ttl: 30, data: 192.0.2.1 }\n",
            "zones[0].records[0].ttl: duplicate key 'ttl': each key may appear once"),
        Arguments.of(
            "dns: { port: 53 }\ndns: { port: 54 }\n" + ZONE,
            "dns: duplicate key 'dns': each key may appear once"),
        Arguments.of(
            "admin: { tokens: [{ name: a, role: viewer, sha256: %s }, { name: a, role: admin, sha256: %s }] }\n"
                    .formatted("a".repeat(64), "b".repeat(64))
                + ZONE,
            "admin.tokens[1].name: 'a' is already the name of admin.tokens[0]"),
        Arguments.of("", "the file is empty"));
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void invalidConfigNamesFieldAndReason(String yaml, String expected) {
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    assertTrue(
        e.getMessage().contains(expected),
        () -> "expected '" + expected + "' in:\n" + e.getMessage());
    assertTrue(e.getMessage().startsWith("test.yaml: "), e.getMessage());
  }

  @Test
  void httpsSectionIsOffUnlessWrittenAndEveryProblemOfItIsNamed() throws Exception {
    assertFalse(parse(ZONE).dns().https().enabled());
    HttpsConfig https = parse("dns: { https: { port: 8443 } }\n" + ZONE).dns().https();
    assertTrue(https.enabled());
    assertTrue(https.generatedCertificate());
    assertTrue(https.http2());
    assertTrue(https.httpdns().enabled());
    assertEquals(20, https.httpdns().requestsPerSecond());
    assertEquals(1024, https.maxConnections());
    assertEquals(64, https.maxConnectionsPerSource());
    assertEquals(Duration.ofSeconds(10), https.requestTimeout());
    assertEquals(
        8,
        parse("dns: { https: { maxConnections: 8 } }\n" + ZONE)
            .dns()
            .https()
            .maxConnectionsPerSource(),
        "left out, the per-source cap never exceeds the total");
    String yaml =
        """
        dns:
          https:
            listen: [localhost]
            port: 70000
            certFile: a.pem
            idleTimeout: 0s
            maxConnections: 10
            maxConnectionsPerSource: 11
            requestTimeout: 10m
            httpdns:
              requestsPerSecond: 0
              ipv6PrefixLength: 8
              trustedTokens:
                - { name: a, sha256: abc }
                - { name: a, sha256: 0000000000000000000000000000000000000000000000000000000000000000 }
        """
            + ZONE;
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    List<String> paths = e.problems().stream().map(ConfigProblem::path).toList();
    assertEquals(
        List.of(
            "dns.https.listen[0]",
            "dns.https.port",
            "dns.https.keyFile",
            "dns.https.idleTimeout",
            "dns.https.maxConnectionsPerSource",
            "dns.https.requestTimeout",
            "dns.https.httpdns.requestsPerSecond",
            "dns.https.httpdns.ipv6PrefixLength",
            "dns.https.httpdns.trustedTokens[0].sha256",
            "dns.https.httpdns.trustedTokens[1].name"),
        paths,
        e.getMessage());
    assertTrue(e.getMessage().contains("must be 1..maxConnections (10), was 11"), e.getMessage());
    assertTrue(e.getMessage().contains("must be at least 1s and at most 5m"), e.getMessage());
  }

  @Test
  void reportsEveryProblemAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class, () -> parse("dns: { port: -1, udpPayloadSize: 1 }\n" + ZONE));
    assertEquals(2, e.problems().size(), e.getMessage());
  }

  @Test
  void reportsEveryWrongTypeAndEveryValueProblemInOneRun() {
    String yaml =
        """
        dns: { port: fifty, udpPayloadSize: 1, tcpIdleTimeout: soon, prot: 5 }
        admin: { metricsPublic: maybe }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            records:
              - { name: www, type: A, data: 192.0.2.1 }
              - { name: www, type: A, ttl: abc, data: 192.0.2.2 }
              - { name: x, type: A, ttl: -1, data: 192.0.2.3 }
        """;
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    List<String> got = e.problems().stream().map(ConfigProblem::toString).toList();
    for (String expected :
        List.of(
            "test.yaml: dns.port: expected a whole number, was \"fifty\"",
            "test.yaml: dns.tcpIdleTimeout: must be a duration",
            "test.yaml: dns: unknown key 'prot'",
            "test.yaml: admin.metricsPublic: expected true or false, was \"maybe\"",
            "test.yaml: zones[0].records[1].ttl: expected a whole number, was \"abc\"",
            "test.yaml: dns.udpPayloadSize: must be 512..65535, was 1",
            "test.yaml: zones[0].records[2].ttl: must be 0..2147483647, was -1")) {
      assertTrue(
          got.stream().anyMatch(p -> p.startsWith(expected)),
          () -> "expected '" + expected + "' in:\n" + e.getMessage());
    }
    assertEquals(7, got.size(), e.getMessage());
    assertTrue(
        got.stream().noneMatch(p -> p.contains("Cannot") || p.contains("`")), e.getMessage());
  }

  @Test
  void everyRepeatedKeyIsReportedWithTheFilesOtherProblems() {
    String yaml =
        """
        dns: { port: 53, port: 54, udpPayloadSize: 1 }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            records:
              - { name: www, type: A, data: 192.0.2.1 }
              - { name: www, type: A, ttl: 60, ttl: 30, data: 192.0.2.2 }
        """;
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    List<String> got = e.problems().stream().map(ConfigProblem::toString).toList();
    assertEquals(
        List.of(
            "test.yaml: dns.port: duplicate key 'port': each key may appear once",
            "test.yaml: zones[0].records[1].ttl: duplicate key 'ttl': each key may appear once",
            "test.yaml: dns.udpPayloadSize: must be 512..65535, was 1"),
        got);
  }

  @Test
  void aListEntryOfTheWrongShapeDoesNotHideTheProblemsAfterIt() {
    String yaml =
        """
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
            ns: [ns1.example.com.]
            records:
              - just-a-string
              - { name: www, type: A, ttl: abc, data: 192.0.2.2 }
              - { name: x, type: A, ttl: -1, data: 192.0.2.3 }
        """;
    ConfigException e = assertThrows(ConfigException.class, () -> parse(yaml));
    List<String> got = e.problems().stream().map(p -> p.path() + ": " + p.message()).toList();
    assertEquals(3, got.size(), e.getMessage());
    assertTrue(got.get(0).startsWith("zones[0].records[0]: expected a "), e.getMessage());
    assertEquals("zones[0].records[1].ttl: expected a whole number, was \"abc\"", got.get(1));
    assertEquals("zones[0].records[2].ttl: must be 0..2147483647, was -1", got.get(2));
  }
}
