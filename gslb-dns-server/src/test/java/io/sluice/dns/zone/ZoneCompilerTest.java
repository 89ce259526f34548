package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xbill.DNS.Name;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/** Every kind of invalid zone data is reported with its config path; valid data compiles. */
class ZoneCompilerTest {
  @TempDir Path dir;

  private static final String HEAD =
      """
      pools:
        p: { endpoints: [ { address: 192.0.2.1 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
      """;

  record Bad(String why, String zoneBody, String expected) {
    @Override
    public String toString() {
      return why;
    }
  }

  static Stream<Bad> badZones() {
    return Stream.of(
        new Bad(
            "invalid IPv4 address",
            "records: [ { name: www, type: A, data: [192.0.2.1, 1.2.3] } ]",
            "zones[0].records[0].data[1]: invalid IPv4 address '1.2.3'"),
        new Bad(
            "invalid IPv6 address",
            "records: [ { name: www, type: AAAA, data: zz } ]",
            "zones[0].records[0].data[0]: invalid IPv6 address 'zz'"),
        new Bad(
            "invalid MX data",
            "records: [ { name: '@', type: MX, data: 'mail.example.test.' } ]",
            "zones[0].records[0].data[0]: invalid MX data 'mail.example.test.': expected an integer"),
        new Bad(
            "unterminated TXT",
            "records: [ { name: t, type: TXT, data: '\"abc' } ]",
            "zones[0].records[0].data[0]: invalid TXT data '\"abc': EOF in quoted string"),
        new Bad(
            "CNAME beside other data",
            "records: [ { name: a, type: A, data: 192.0.2.1 }, "
                + "{ name: a, type: CNAME, data: b.example.test. } ]",
            "zones[0].records[1]: a CNAME cannot stand beside other data at a.example.test. (also A)"),
        new Bad(
            "CNAME at the apex",
            "records: [ { name: '@', type: CNAME, data: b.example.test. } ]",
            "zones[0].records[0]: a CNAME cannot be at the zone apex"),
        new Bad(
            "two CNAMEs at one name",
            "records: [ { name: a, type: CNAME, data: [b.example.test., c.example.test.] } ]",
            "zones[0].records[0]: more than one CNAME at a.example.test."),
        new Bad(
            "data below a delegation",
            "records: [ { name: sub, type: NS, data: ns.example.org. }, "
                + "{ name: x.sub, type: MX, data: '10 m.example.org.' } ]",
            "zones[0].records[1]: x.sub.example.test. MX is below the delegation at sub.example.test."),
        new Bad(
            "data below a DNAME",
            "records: [ { name: old, type: DNAME, data: new.example.test. }, "
                + "{ name: www.old, type: A, data: 192.0.2.1 } ]",
            "zones[0].records[1]: www.old.example.test. is below the DNAME at old.example.test."
                + " and would never be served (RFC 6672 §2.3)"),
        new Bad(
            "delegation without glue",
            "records: [ { name: sub, type: NS, data: ns1.sub.example.test. } ]",
            "zones[0].records[0]: the delegation sub.example.test. needs glue: no A or AAAA record"
                + " for its name server ns1.sub.example.test."),
        new Bad(
            "wildcard delegation",
            "records: [ { name: '*', type: NS, data: ns.example.org. } ]",
            "zones[0].records[0]: a wildcard cannot be a delegation"),
        new Bad(
            "service beside static A",
            "records: [ { name: app, type: A, data: 192.0.2.1 } ]\n"
                + "    services: [ { name: app, pools: [p] } ]",
            "zones[0].services[0].name: service app.example.test. collides with the static A"
                + " records at zones[0].records[0]"),
        new Bad(
            "service below a delegation",
            "records: [ { name: sub, type: NS, data: ns.example.org. } ]\n"
                + "    services: [ { name: app.sub, pools: [p] } ]",
            "zones[0].services[0].name: service app.sub.example.test. is at or below the"
                + " delegation at sub.example.test."));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badZones")
  void reportsInvalidZoneData(Bad bad) throws Exception {
    String yaml = HEAD + "    " + bad.zoneBody + "\n";
    SluiceConfig config = ConfigLoader.parse(yaml, "bad.yaml", dir);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "bad.yaml"));
    List<String> problems = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        problems.stream().anyMatch(p -> p.startsWith("bad.yaml: " + bad.expected)),
        "expected '" + bad.expected + "' in " + problems);
  }

  @Test
  void reportsEveryProblemAtOnce() throws Exception {
    String yaml =
        HEAD
            + "    records: [ { name: a, type: A, data: 1.2.3 }, { name: b, type: AAAA, data: x } ]\n";
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ZoneCompiler.compile(ConfigLoader.parse(yaml, "bad.yaml", dir), "bad.yaml"));
    assertEquals(2, e.problems().size(), e.getMessage());
  }

  @Test
  void duplicateZonesAreRejected() throws Exception {
    String yaml =
        HEAD
            + """
              - origin: EXAMPLE.test.
                soa: { mname: ns1.example.test., rname: h.example.test. }
                ns: [ns1.example.test.]
            """;
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> ZoneCompiler.compile(ConfigLoader.parse(yaml, "dup.yaml", dir), "dup.yaml"));
    assertTrue(e.getMessage().contains("zones[1].origin: zone example.test. is declared twice"));
  }

  private SluiceConfig fileZone(String text) throws Exception {
    Files.writeString(dir.resolve("z.zone"), text);
    String yaml =
        """
        zones:
          - origin: example.test.
            file: z.zone
            ns: [ns9.example.test.]
        """;
    return ConfigLoader.parse(yaml, "f.yaml", dir);
  }

  /** A master file of the apex, its name server and www. */
  private static final String FILE_HEAD =
      """
      $TTL 300
      @    IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
      @    IN NS  ns1.example.test.
      ns1  IN A   192.0.2.53
      www  IN A   192.0.2.80
      """;

  @Test
  void aNodeIsDelegatedExactlyWhenItsNameIs() throws Exception {
    SluiceConfig config =
        fileZone(
            FILE_HEAD
                + """
            sub           IN NS  ns1.sub.example.test.
            ns1.sub       IN A   192.0.2.1
            deep.ns1.sub  IN AAAA 2001:db8::1
            a.b           IN NS  ns.example.org.
            x.y.z         IN A   192.0.2.9
            """);
    Zone z = ZoneCompiler.compile(config, "f.yaml").zones().get(0);
    List<String> delegated = new java.util.ArrayList<>();
    for (Name n : z.names()) {
      boolean byName = z.isDelegated(n);
      assertEquals(byName, z.isDelegated(z.node(n)), n.toString());
      if (byName) {
        delegated.add(n.toString());
      }
    }
    java.util.Collections.sort(delegated);
    // The cuts and everything below them; not the apex, the empty non-terminals b and y.z above.
    assertEquals(
        List.of(
            "a.b.example.test.",
            "deep.ns1.sub.example.test.",
            "ns1.sub.example.test.",
            "sub.example.test."),
        delegated);
  }

  /**
   * The zone's names are exactly its owners and every name between each owner and the apex, for
   * owners of many depths sharing parents in every order (the compiler remembers parents it has
   * just placed).
   */
  @Test
  void theZoneHasEveryOwnerAndEveryEmptyNonTerminalAboveIt() throws Exception {
    java.util.Random random = new java.util.Random(5);
    StringBuilder file = new StringBuilder(FILE_HEAD);
    Name origin = Name.fromString("example.test.");
    java.util.Set<Name> expected = new java.util.HashSet<>();
    for (String owner : List.of("example.test.", "ns1.example.test.", "www.example.test.")) {
      expected.add(Name.fromString(owner));
    }
    for (int i = 0; i < 3000; i++) {
      int depth = 1 + random.nextInt(4);
      StringBuilder owner = new StringBuilder();
      for (int d = 0; d < depth; d++) {
        // Few distinct labels, so that names share parents, near each other in the file or not.
        owner.append(d == 0 ? "h" + random.nextInt(400) : ".p" + random.nextInt(6));
      }
      Name name = Name.fromString(owner.toString(), origin);
      file.append(name).append(" IN A 192.0.2.").append(random.nextInt(250)).append('\n');
      for (Name n = name; !n.equals(origin); n = new Name(n, 1)) {
        expected.add(n);
      }
    }
    Zone z = ZoneCompiler.compile(fileZone(file.toString()), "f.yaml").zones().get(0);
    assertEquals(expected, z.names());
    for (Name n : expected) {
      assertEquals(n, z.node(n).name(), "the node of " + n + " is its own");
    }
  }

  @Test
  void loadsAMasterFileAndMergesConfigNs() throws Exception {
    SluiceConfig config = fileZone(FILE_HEAD);
    Zone z = ZoneCompiler.compile(config, "f.yaml").zones().get(0);
    Resolution www = z.resolve(Name.fromString("www.example.test."), Type.A);
    assertEquals("192.0.2.80", www.answer().get(0).rdataToString());
    assertEquals(2, z.resolve(Name.fromString("example.test."), Type.NS).answer().size());
    Resolution nx = z.resolve(Name.fromString("nx.example.test."), Type.A);
    assertEquals(Rcode.NXDOMAIN, nx.rcode());
    assertEquals(60, nx.authority().get(0).getTTL());
  }

  @Test
  void problemsWithMasterFileRecordsNameTheFileTheOwnerAndTheType() throws Exception {
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @     IN SOA   ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            a     IN CNAME x.example.test.
            a     IN CNAME y.example.test.
            b     IN CNAME x.example.test.
            b     IN TXT   "beside"
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    String file = dir.resolve("z.zone").toString();
    List<String> problems = e.problems().stream().map(ConfigProblem::toString).toList();
    assertTrue(
        problems.contains(
            "f.yaml: zones[0].file: "
                + file
                + " (a.example.test. CNAME): more than one CNAME at a.example.test."),
        problems.toString());
    assertTrue(
        problems.contains(
            "f.yaml: zones[0].file: "
                + file
                + " (b.example.test. CNAME): a CNAME cannot stand beside other data at"
                + " b.example.test. (also TXT)"),
        problems.toString());
  }

  @Test
  void recordsOfOneTypeFormOneSetWithOneTtlAndNoDuplicates() throws Exception {
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @     IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            www   IN A   192.0.2.2
            www   60 IN A   192.0.2.1
            www   IN A   192.0.2.2
            one   IN A   192.0.2.9
            """);
    Zone z = ZoneCompiler.compile(config, "f.yaml").zones().get(0);
    Resolution www = z.resolve(Name.fromString("www.example.test."), Type.A);
    assertEquals(
        List.of("192.0.2.1 60", "192.0.2.2 60"),
        www.answer().stream().map(r -> r.rdataToString() + " " + r.getTTL()).toList());
    Resolution one = z.resolve(Name.fromString("ONE.example.test."), Type.A);
    assertEquals(
        List.of("192.0.2.9 300"),
        one.answer().stream().map(r -> r.rdataToString() + " " + r.getTTL()).toList());
  }

  @Test
  void everyRecordOfAZoneCanBeIteratedByName() throws Exception {
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @       IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            ns9     IN A   192.0.2.53
            www     IN A   192.0.2.2
            www     IN A   192.0.2.1
            www     IN TXT "t"
            a.b.c   IN A   192.0.2.3
            """);
    Zone z = ZoneCompiler.compile(config, "f.yaml").zones().get(0);
    List<String> all = new java.util.ArrayList<>();
    for (Name n : z.names()) {
      for (org.xbill.DNS.RRset set : z.rrsets(n)) {
        set.rrs(false)
            .forEach(
                r ->
                    all.add(
                        r.getName()
                            + " "
                            + r.getTTL()
                            + " "
                            + Type.string(r.getType())
                            + " "
                            + r.rdataToString()));
      }
    }
    java.util.Collections.sort(all);
    assertEquals(
        List.of(
            "a.b.c.example.test. 300 A 192.0.2.3",
            "example.test. 300 SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60",
            "example.test. 3600 NS ns9.example.test.",
            "ns9.example.test. 300 A 192.0.2.53",
            "www.example.test. 300 A 192.0.2.1",
            "www.example.test. 300 A 192.0.2.2",
            "www.example.test. 300 TXT \"t\""),
        all);
    // The empty non-terminals between a.b.c and the apex exist and own nothing.
    assertTrue(z.names().contains(Name.fromString("b.c.example.test.")));
    assertTrue(z.rrsets(Name.fromString("c.example.test.")).isEmpty());
  }

  @Test
  void masterFileErrorsNameTheFileAndLine() throws Exception {
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @    IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            www  IN A   1.2.3
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    String expected = "f.yaml: zones[0].file: " + dir.resolve("z.zone") + " line 3: ";
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }

  @Test
  void anIncludeInAMasterFileIsAnErrorAtItsLine() throws Exception {
    Files.writeString(dir.resolve("other.zone"), "extra IN A 192.0.2.9\n");
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @    IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            $INCLUDE other.zone
            www  IN A   192.0.2.80
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    String expected =
        "f.yaml: zones[0].file: " + dir.resolve("z.zone") + " line 3: $INCLUDE is not allowed";
    assertTrue(e.getMessage().startsWith(expected), e.getMessage());
  }

  @Test
  void everyBrokenLineOfAMasterFileIsReportedInOneRun() throws Exception {
    Files.writeString(dir.resolve("other.zone"), "extra IN A 192.0.2.9\n");
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @    IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            www  IN A   1.2.3
            ok1  IN A   192.0.2.1
            $INCLUDE other.zone
            $ORIGIN sub.example.test.
            bad  IN AAAA nope
            ok2  IN A   192.0.2.2
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    String file = "f.yaml: zones[0].file: " + dir.resolve("z.zone");
    List<String> got = e.problems().stream().map(ConfigProblem::toString).toList();
    assertEquals(3, got.size(), e.getMessage());
    assertTrue(got.get(0).startsWith(file + " line 3: "), e.getMessage());
    assertTrue(got.get(1).startsWith(file + " line 5: $INCLUDE is not allowed"), e.getMessage());
    assertTrue(got.get(2).startsWith(file + " line 7: "), e.getMessage());
  }

  @Test
  void masterFileRecordsOutsideTheZoneAreRejected() throws Exception {
    SluiceConfig config =
        fileZone(
            """
            $TTL 300
            @    IN SOA ns1.example.test. h.example.test. 5 7200 1800 1209600 60
            www.example.org.  IN A   192.0.2.1
            """);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    assertTrue(e.getMessage().contains("www.example.org. is outside the zone"), e.getMessage());
  }

  @Test
  void aZoneNeedsAnSoaFromConfigOrFile() throws Exception {
    SluiceConfig config = fileZone("$TTL 300\nwww IN A 192.0.2.1\n");
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "f.yaml"));
    assertTrue(e.getMessage().contains("zones[0].soa: is required"), e.getMessage());
  }

  @Test
  void missingMasterFileIsReported() throws Exception {
    String yaml =
        """
        zones:
          - origin: example.test.
            file: missing.zone
        """;
    SluiceConfig config = ConfigLoader.parse(yaml, "m.yaml", dir);
    ConfigException e =
        assertThrows(ConfigException.class, () -> ZoneCompiler.compile(config, "m.yaml"));
    assertTrue(
        e.getMessage()
            .contains("zones[0].file: cannot read master file " + dir.resolve("missing.zone")),
        e.getMessage());
  }

  @Test
  void theShippedExampleCompiles() throws Exception {
    Path example = Path.of("../config/sluice.yaml");
    SluiceConfig config = ConfigLoader.load(example);
    ZoneIndex index = ZoneCompiler.compile(config, example.toString());
    assertEquals(2, index.zones().size());
  }
}
