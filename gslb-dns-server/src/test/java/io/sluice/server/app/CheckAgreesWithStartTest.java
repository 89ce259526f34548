package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code sluice check} reports every problem of a file in one run, across all phases (shape and
 * types, values, master files, the policy chain, the files the node needs at start), and {@code
 * run} refuses the same file with the same problems and exit status 2, before opening a socket.
 */
class CheckAgreesWithStartTest {
  @TempDir Path dir;

  record Outcome(int status, String err) {}

  private Outcome main(String... args) {
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      status =
          new CommandLine(new Main()).setOut(new PrintWriter(new StringWriter())).execute(args);
    } finally {
      System.setErr(original);
    }
    return new Outcome(status, err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void everyProblemOfEveryPhaseAtOnceAndStartAgrees() throws Exception {
    Files.writeString(dir.resolve("state"), "a file where a directory belongs\n");
    Files.writeString(dir.resolve("other.zone"), "x IN A 192.0.2.9\n");
    Files.writeString(
        dir.resolve("example.zone"),
        """
        $TTL 300
        @  IN SOA ns1.example.test. h.example.test. 1 7200 1800 1209600 60
        @  IN NS  ns1.example.test.
        ns1 IN A  192.0.2.53
        $INCLUDE other.zone
        """);
    Files.writeString(dir.resolve("not-a-database.mmdb"), "not a MaxMind database\n");
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        dns: { listen: [127.0.0.1], port: fifty, udpPayloadSize: 1 }
        admin:
          port: 0
          tls: { certFile: missing.crt, keyFile: missing.key }
        stateDir: state
        regions: { eu: {} }
        topology:
          geoip:
            database: not-a-database.mmdb
            rules: [{ continent: EU, region: eu }]
        zones:
          - origin: example.test.
            file: example.zone
            records:
              - { name: www, type: A, ttl: abc, data: 192.0.2.80 }
        """);
    List<String> expected =
        List.of(
            "dns.port: expected a whole number, was \"fifty\"",
            "zones[0].records[0].ttl: expected a whole number, was \"abc\"",
            "dns.udpPayloadSize: must be 512..65535, was 1",
            "stateDir: 'state' (resolved to " + dir.resolve("state") + ") exists and is not a",
            "admin.tls.certFile: cannot read 'missing.crt'",
            "admin.tls.keyFile: cannot read 'missing.key'",
            "zones[0].file: " + dir.resolve("example.zone") + " line 5: $INCLUDE is not allowed",
            "topology.geoip.database: cannot load the GeoIP database");

    Outcome check = main("check", "--config", file.toString());
    assertEquals(Main.INVALID_CONFIG, check.status(), check.err());
    for (String problem : expected) {
      assertTrue(check.err().contains(file + ": " + problem), problem + " in:\n" + check.err());
    }
    assertFalse(check.err().contains("Exception"), check.err());

    Outcome run = main("run", "--config", file.toString());
    assertEquals(Main.INVALID_CONFIG, run.status(), run.err());
    for (String problem : expected) {
      assertTrue(run.err().contains(file + ": " + problem), problem + " in:\n" + run.err());
    }
  }

  @Test
  void anUnusableCertificateIsFoundByCheckAndStopsStartBeforeAnySocket() throws Exception {
    Files.writeString(dir.resolve("admin.crt"), "-----BEGIN CERTIFICATE-----\nnope\n");
    Files.writeString(dir.resolve("admin.key"), "-----BEGIN PRIVATE KEY-----\nnope\n");
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        dns: { listen: [127.0.0.1], port: 0 }
        admin:
          port: 0
          tls: { certFile: admin.crt, keyFile: admin.key }
        stateDir: state
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
        """);
    for (String command : new String[] {"check", "run"}) {
      Outcome o = main(command, "--config", file.toString());
      assertEquals(Main.INVALID_CONFIG, o.status(), command + ": " + o.err());
      assertTrue(
          o.err().contains(file + ": admin.tls: cannot use certFile " + dir.resolve("admin.crt")),
          command + ": " + o.err());
      assertFalse(o.err().contains("\tat "), "no stack trace: " + o.err());
    }
    assertFalse(Files.exists(dir.resolve("state")), "start opened nothing");
  }

  @Test
  void anUnusableDohCertificateIsFoundByCheckAndStopsStartBeforeAnySocket() throws Exception {
    Files.writeString(dir.resolve("doh.crt"), "-----BEGIN CERTIFICATE-----\nnope\n");
    Files.writeString(dir.resolve("doh.key"), "-----BEGIN PRIVATE KEY-----\nnope\n");
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        "dns: { listen: [127.0.0.1], port: 0, https: { port: 0, certFile: doh.crt, keyFile:"
            + " missing.key } }\n"
            + NODE_AND_ZONE);
    bothRefuse(file, file + ": dns.https.keyFile: cannot read " + dir.resolve("missing.key"));
    Files.writeString(
        file,
        "dns: { listen: [127.0.0.1], port: 0, https: { port: 0, certFile: doh.crt, keyFile:"
            + " doh.key } }\n"
            + NODE_AND_ZONE);
    bothRefuse(file, file + ": dns.https: cannot use certFile " + dir.resolve("doh.crt"));
    assertFalse(Files.exists(dir.resolve("state")), "start opened nothing");
    // Without certFile/keyFile check passes and generates nothing; the start generates it.
    Files.writeString(
        file, "dns: { listen: [127.0.0.1], port: 0, https: { port: 0 } }\n" + NODE_AND_ZONE);
    Outcome ok = main("check", "--config", file.toString());
    assertEquals(0, ok.status(), ok.err());
    assertFalse(Files.exists(dir.resolve("state/https.crt")));
  }

  /** Everything but the dns section: the admin API, a state directory and one zone. */
  private static final String NODE_AND_ZONE =
      """
      admin: { port: 0 }
      stateDir: state
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
      """;

  /**
   * A node on loopback with {@link #NODE_AND_ZONE}, the zone's entry ending in {@code zoneLines}.
   */
  private static String oneZone(String zoneLines) {
    return "dns: { listen: [127.0.0.1], port: 0 }\n" + NODE_AND_ZONE + zoneLines;
  }

  /** {@code sluice check} and the start both refuse {@code file}, saying {@code expected}. */
  private void bothRefuse(Path file, String expected) {
    for (String command : new String[] {"check", "run"}) {
      Outcome o = main(command, "--config", file.toString());
      assertEquals(Main.INVALID_CONFIG, o.status(), command + ": " + o.err());
      assertTrue(o.err().contains(expected), command + ": " + o.err());
      assertFalse(o.err().contains("\tat "), "no stack trace: " + o.err());
    }
  }

  @Test
  void aProblemInAMasterFilesRecordsIsReportedByTheStartOnceAndAsCheckNamesIt() throws Exception {
    Files.writeString(dir.resolve("example.zone"), "www IN A 192.0.2.1\nsub IN NS ns1.sub\n");
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, oneZone("    file: example.zone\n"));
    String problem =
        file
            + ": zones[0].file: "
            + dir.resolve("example.zone")
            + " (sub.example.test. NS): the delegation sub.example.test. needs glue";
    bothRefuse(file, problem);
    // The start reads the master file from its copy in the state directory: the problem still
    // names the file, and only once.
    Outcome run = main("run", "--config", file.toString());
    assertEquals(
        1, run.err().split(java.util.regex.Pattern.quote("needs glue"), -1).length - 1, run.err());
    assertFalse(run.err().contains("blobs"), run.err());
  }

  @Test
  void aLocalTokenFileTheStartRefusesFailsCheckToo() throws Exception {
    Path state = Files.createDirectories(dir.resolve("state"));
    Path token = state.resolve("admin.token");
    Files.writeString(token, "a-token-other-users-can-read\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, oneZone(""));
    for (String command : new String[] {"check", "run"}) {
      Outcome o = main(command, "--config", file.toString());
      assertEquals(Main.INVALID_CONFIG, o.status(), command + ": " + o.err());
      assertTrue(
          o.err()
              .contains(
                  file
                      + ": stateDir: the local admin token (admin.tokens is empty): token file "
                      + token
                      + " is accessible to other users (mode rw-r--r--)"),
          command + ": " + o.err());
    }
    Files.writeString(token, "\n");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-------"));
    Outcome empty = main("check", "--config", file.toString());
    assertEquals(Main.INVALID_CONFIG, empty.status(), empty.err());
    assertTrue(empty.err().contains("token file " + token + " is empty"), empty.err());
  }

  @Test
  void cookieSecretFilesTheStartRefusesFailCheckToo() throws Exception {
    Path state = Files.createDirectories(dir.resolve("state"));
    Path secret = state.resolve("cookie.secret");
    Files.writeString(secret, "0123456789abcdef0123456789abcdef\n");
    Files.setPosixFilePermissions(secret, PosixFilePermissions.fromString("rw-r--r--"));
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(
        file,
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          cookies: { enabled: true, previousSecretFile: old.secret }
        admin: { enabled: false }
        stateDir: state
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
        """);
    for (String command : new String[] {"check", "run"}) {
      Outcome o = main(command, "--config", file.toString());
      assertEquals(Main.INVALID_CONFIG, o.status(), command + ": " + o.err());
      assertTrue(
          o.err()
              .contains(
                  file
                      + ": dns.cookies.secretFile: cannot use cookie secret: token file "
                      + secret
                      + " is accessible to other users (mode rw-r--r--)"),
          command + ": " + o.err());
      assertTrue(
          o.err()
              .contains(
                  file
                      + ": dns.cookies.previousSecretFile: file "
                      + state.resolve("old.secret")
                      + " does not exist"),
          command + ": " + o.err());
    }
    // check creates no secret; the start creates a missing one (covered by CookieTest).
    Files.delete(secret);
    main("check", "--config", file.toString());
    assertFalse(Files.exists(secret));
  }
}
