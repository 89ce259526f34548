package io.sluice.admin.cli;

import static io.sluice.admin.testing.AdminFixture.ADMIN;
import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static io.sluice.admin.testing.AdminFixture.SERVICE;
import static io.sluice.admin.testing.AdminFixture.VIEWER;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.rest.AdminServer;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.admin.testing.TestCertificate;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.spi.ClusterMembers;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Runs {@code sluice ctl} in-process against a real admin server. */
class CtlTest {
  private AdminFixture f;
  private final Map<String, DnsVerifier.DnsAnswer> dnsAnswers = new HashMap<>();
  private final List<String> dnsQueries = new ArrayList<>();

  /** What one run printed and returned. */
  record Run(int code, String out, String err) {
    JsonNode json() throws IOException {
      return new ObjectMapper().readTree(out);
    }
  }

  @BeforeEach
  void start() throws Exception {
    f = new AdminFixture();
  }

  @AfterEach
  void stop() {
    f.close();
  }

  private Run run(String token, String stdin, boolean tty, String... args) {
    Map<String, String> env = new HashMap<>();
    env.put("SLUICE_ADMIN_URL", f.baseUrl());
    if (token != null) {
      env.put("SLUICE_TOKEN", token);
    }
    return runWithEnv(env, stdin, tty, args);
  }

  private Run runWithEnv(Map<String, String> env, String stdin, boolean tty, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CtlIo io =
        new CtlIo(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader(stdin)),
            env,
            tty,
            tickerClock());
    int code =
        CtlMain.run(
            args,
            io,
            (server, port, name, type, subnet) -> {
              dnsQueries.add(server + ":" + port + " " + name + " " + type + " " + subnet);
              DnsVerifier.DnsAnswer a = dnsAnswers.get(subnet);
              if (a == null) {
                throw new IOException("timed out");
              }
              return a;
            });
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  /** The fixture's manual clock, in UTC: what the server's times are relative to. */
  private Clock tickerClock() {
    return new Clock() {
      @Override
      public ZoneId getZone() {
        return ZoneOffset.UTC;
      }

      @Override
      public Clock withZone(ZoneId zone) {
        return this;
      }

      @Override
      public Instant instant() {
        return Instant.ofEpochMilli(f.ticker.currentTimeMillis());
      }
    };
  }

  private Run ok(String token, String... args) {
    Run r = run(token, "", false, args);
    assertEquals(0, r.code(), String.join(" ", args) + "\nout: " + r.out() + "\nerr: " + r.err());
    return r;
  }

  @Test
  void statusShowsServicesPoolsVerdictsAndFreezeAsATableOrJson() throws Exception {
    f.store.update(s -> s.withTraffic(s.traffic().withFrozen(true)));
    Run table = ok(VIEWER, "status");
    assertTrue(table.out().contains("automation: FROZEN (global)"), table.out());
    assertTrue(table.out().contains("app.example.com."));
    assertTrue(table.out().contains("eu-west-1 50%, us-east-1 50%"), table.out());
    assertTrue(
        table.out().matches("(?s).*lon-b\\s+down\\s+\\S.*?\\s+-\\s+-\\s+no\\s+connect refused.*"),
        table.out());
    assertFalse(table.out().contains("\u001b["), "no colour when not a terminal");
    Run colour = run(VIEWER, "", true, "status");
    assertTrue(colour.out().contains(Style.RED + "down" + Style.RESET), colour.out());
    Run json = ok(VIEWER, "status", "--json");
    assertEquals(2, json.json().get("snapshotVersion").asLong());
    assertTrue(json.json().get("frozen").asBoolean());
    Run missing = run(VIEWER, "", false, "status", "nope.example.com");
    assertEquals(CtlMain.FAILED, missing.code());
  }

  /** Three nodes as a node's registry cache lists them: ns3 went away two minutes ago. */
  static ClusterMembers threeNodes(long now) {
    return new ClusterMembers() {
      @Override
      public List<Member> members() {
        return List.of(
            new Member("ns1", "eu", "192.0.2.1:53", "http://192.0.2.1:8053", false, 40, true, now),
            new Member("ns2", "us", "192.0.2.2:53", "http://192.0.2.2:8053", true, 42, true, now),
            new Member(
                "ns3",
                "ap",
                "192.0.2.3:53",
                "http://192.0.2.3:8053",
                false,
                35,
                false,
                now - 125_000));
      }

      @Override
      public Optional<String> self() {
        return Optional.of("ns1");
      }

      @Override
      public long sharedRevision() {
        return 42;
      }

      @Override
      public long lastContactMillis() {
        return now - 400;
      }
    };
  }

  @Test
  void clusterStatusShowsEveryNodeWithRoleLagAndStaleSinceInHumanTime() throws Exception {
    long now = f.ticker.currentTimeMillis();
    f.server.withCluster(threeNodes(now));
    Run table = ok(VIEWER, "cluster", "status");
    assertTrue(table.out().contains("node ns1  leader ns2  shared revision 42"), table.out());
    assertTrue(table.out().contains("etcd connected"), table.out());
    assertTrue(
        table
            .out()
            .matches("(?s).*ns1 \\(this node\\)\\s+eu\\s+follower\\s+40\\s+2\\s+connected.*"),
        table.out());
    assertTrue(table.out().matches("(?s).*ns2\\s+us\\s+leader\\s+42\\s+0\\s+connected.*"));
    String since =
        java.time.format.DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss 'UTC'")
            .withZone(java.time.ZoneOffset.UTC)
            .format(java.time.Instant.ofEpochMilli(now - 125_000));
    assertTrue(table.out().contains("stale since " + since + " (2 min 5 s ago)"), table.out());
    assertFalse(table.out().contains(String.valueOf(now - 125_000)), "no epoch millis");

    JsonNode json = ok(VIEWER, "--json", "cluster", "status").json();
    assertEquals("ns2", json.path("leader").asText());
    JsonNode ns3 = json.path("nodes").get(2);
    assertEquals("follower", ns3.path("role").asText());
    assertEquals(7, ns3.path("lag").asLong());
    assertFalse(ns3.path("connected").asBoolean());
    assertEquals(
        java.time.Instant.ofEpochMilli(now - 125_000).toString(), ns3.path("staleSince").asText());
  }

  @Test
  void clusterStatusOfASingleNodeSaysItIsNotClustered() throws Exception {
    Run r = ok(VIEWER, "cluster", "status");
    assertTrue(r.out().startsWith("not clustered:"), r.out());
    assertFalse(ok(VIEWER, "--json", "cluster", "status").json().path("clustered").asBoolean());
  }

  @Test
  void statusShowsAPausedRampUnderPendingWithItsFailure() throws Exception {
    f.control.setPending(
        SERVICE,
        Map.of(
            "kind",
            "resume",
            "summary",
            "failback paused at 100.0% (error rate 0.3 above 0.05): confirm to retry, reject to"
                + " roll back",
            "sinceMillis",
            5));
    Run table = ok(VIEWER, "status");
    assertTrue(
        table.out().contains("resume: failback paused at 100.0% (error rate 0.3 above 0.05)"),
        table.out());
  }

  @Test
  void weightsSetAsksUnlessYesAndSendsTheWeights() {
    Run declined = run(OPERATOR, "no\n", false, "weights", "set", "app.example.com", "eu-west-1=3");
    assertEquals(CtlMain.REFUSED, declined.code());
    assertTrue(declined.err().contains("Type 'yes' to continue"));
    Run eof = run(OPERATOR, "", false, "weights", "set", "app.example.com", "eu-west-1=3");
    assertEquals(CtlMain.REFUSED, eof.code(), "no answer is no");
    assertTrue(f.control.calls().isEmpty());
    Run yes =
        run(
            OPERATOR,
            "yes\n",
            false,
            "weights",
            "set",
            "app.example.com",
            "eu-west-1=3",
            "us-east-1=1",
            "--ramp",
            "-r",
            "load");
    assertEquals(0, yes.code(), yes.err());
    assertTrue(yes.out().contains("snapshot version 2"), yes.out());
    assertEquals(
        Map.of("eu-west-1", 3, "us-east-1", 1), f.control.lastCall().args().get("weights"));
    assertEquals(true, f.control.lastCall().args().get("ramp"));
    assertEquals("load", f.control.lastCall().args().get("reason"));
    Run bad =
        run(OPERATOR, "", false, "weights", "set", "app.example.com", "eu-west-1=-4", "--yes");
    assertEquals(CtlMain.FAILED, bad.code());
    assertTrue(bad.err().contains("weights.eu-west-1: must be 0..65535, was -4"), bad.err());
    assertEquals(
        CtlMain.USAGE,
        run(OPERATOR, "", false, "weights", "set", "app.example.com", "eu-west-1=x").code());
  }

  @Test
  void rollbackNeverAsksAndNeedsAServiceOrAll() {
    Run r = ok(OPERATOR, "rollback", "app.example.com", "-r", "bad switch");
    assertEquals("rollback", f.control.lastCall().command());
    assertEquals(SERVICE, f.control.lastCall().service());
    assertTrue(r.err().isEmpty(), "no prompt");
    ok(OPERATOR, "rollback", "--all", "--request-id", "inc-7");
    assertEquals(null, f.control.lastCall().service());
    assertEquals("inc-7", f.control.lastCall().requestId());
    // A retry carries the same request id; that the controller applies it once is tested against
    // the real controller (OperatorActionsEndToEndTest).
    ok(OPERATOR, "rollback", "--all", "--request-id", "inc-7");
    assertEquals("inc-7", f.control.lastCall().requestId());
    assertEquals(CtlMain.USAGE, run(OPERATOR, "", false, "rollback").code());
    assertEquals(
        CtlMain.USAGE, run(OPERATOR, "", false, "rollback", "app.example.com", "--all").code());
  }

  @Test
  void changesThatNeverAskAcceptYesAsTypedInARunbook() {
    // Without a terminal an unanswered question is "no": these succeed because they never ask,
    // and --yes out of habit must not turn them into a usage error mid-incident.
    Run r = run(OPERATOR, "", false, "rollback", "app.example.com", "--yes");
    assertEquals(0, r.code(), r.err());
    assertEquals("rollback", f.control.lastCall().command());
    assertEquals(0, run(OPERATOR, "", false, "move", "abort", "app.example.com", "-y").code());
    assertEquals("abortMove", f.control.lastCall().command());
    assertEquals(0, run(OPERATOR, "", false, "freeze", "--yes").code());
    assertEquals(0, run(OPERATOR, "", false, "undrain", "eu-west-1/lon-b", "--yes").code());
    assertEquals("undrain", f.control.lastCall().command());
  }

  @Test
  void freezeUnfreezeConfirmRejectMoveDrillAndDrain() throws Exception {
    ok(OPERATOR, "freeze");
    assertTrue(f.store.current().traffic().frozen());
    ok(OPERATOR, "freeze", "app.example.com");
    assertTrue(f.store.current().traffic().plan(SERVICE).frozen());
    assertEquals(CtlMain.REFUSED, run(OPERATOR, "", false, "unfreeze").code());
    ok(OPERATOR, "unfreeze", "--yes");
    ok(OPERATOR, "unfreeze", "app.example.com", "-y");
    assertFalse(f.store.current().traffic().frozen());
    assertFalse(f.store.current().traffic().plan(SERVICE).frozen());

    Run conflict = run(OPERATOR, "", false, "reject", "app.example.com");
    assertEquals(CtlMain.REFUSED, conflict.code(), "nothing pending is a conflict");
    assertTrue(conflict.err().contains("refused (conflict)"), conflict.err());
    f.control.setPending(SERVICE, Map.of("step", 2));
    ok(OPERATOR, "confirm", "app.example.com", "--yes");
    assertEquals("confirm", f.control.lastCall().command());
    f.control.setPending(SERVICE, Map.of("step", 3));
    ok(OPERATOR, "reject", "app.example.com");
    assertEquals("reject", f.control.lastCall().command());

    ok(
        OPERATOR,
        "move",
        "start",
        "app.example.com",
        "--from",
        "eu-west-1",
        "--to",
        "us-east-1",
        "--steps",
        "5,50,100",
        "--yes");
    assertEquals(List.of(5, 50, 100), f.control.lastCall().args().get("steps"));
    assertEquals(null, f.control.lastCall().args().get("region"));
    ok(
        OPERATOR,
        "move",
        "start",
        "app.example.com",
        "--from",
        "eu-west-1",
        "--to",
        "us-east-1",
        "--region",
        "eu-west",
        "--yes");
    assertEquals("eu-west", f.control.lastCall().args().get("region"));
    ok(OPERATOR, "move", "abort", "app.example.com");
    assertEquals("abortMove", f.control.lastCall().command());

    ok(
        OPERATOR,
        "drill",
        "start",
        "app.example.com",
        "--to",
        "us-east-1",
        "--percent",
        "5",
        "--duration",
        "15m",
        "--yes");
    assertEquals(900L, f.control.lastCall().args().get("seconds"));
    Run drill = ok(VIEWER, "drill", "status", "app.example.com");
    assertTrue(drill.out().contains(": → us-east-1 5 %"), drill.out());
    ok(OPERATOR, "drill", "stop", "app.example.com");
    assertTrue(ok(VIEWER, "drill", "status", "app.example.com").out().contains("no drill"));
    assertEquals(
        CtlMain.USAGE,
        run(
                OPERATOR,
                "",
                false,
                "drill",
                "start",
                "app.example.com",
                "--to",
                "us-east-1",
                "--percent",
                "5",
                "--duration",
                "soon",
                "--yes")
            .code());

    ok(OPERATOR, "drain", "eu-west-1/lon-b", "--yes");
    ok(OPERATOR, "drain", "us-east-1", "--yes");
    assertEquals(Set.of("eu-west-1/lon-b", "us-east-1"), f.store.current().traffic().drained());
    ok(OPERATOR, "undrain", "eu-west-1/lon-b");
    ok(OPERATOR, "undrain", "us-east-1");
    assertEquals(Set.of(), f.store.current().traffic().drained());
    assertEquals(CtlMain.USAGE, run(OPERATOR, "", false, "drain", "a/b/c", "--yes").code());
  }

  @Test
  void loadReportsAPoolLoadWithAnOperatorToken() throws Exception {
    Run r = ok(OPERATOR, "load", "eu-west-1", "850", "-r", "lb export");
    assertTrue(r.out().contains("load of eu-west-1 is 850.0"), r.out());
    assertEquals(850.0, f.store.current().health().poolLoad("eu-west-1"));
    assertEquals(List.of("otto pool-load {pool=eu-west-1, load=850.0, source=push}"), f.loadAudit);
    Run status = ok(VIEWER, "status", "--json");
    assertTrue(
        status.out().contains("\"source\" : \"push\"")
            || status.out().contains("\"source\":\"push\""),
        status.out());
    assertTrue(ok(VIEWER, "status").out().contains("OF CAPACITY"), "status shows the loads");
    assertEquals(CtlMain.REFUSED, run(VIEWER, "", false, "load", "eu-west-1", "1").code());
    assertEquals(CtlMain.USAGE, run(OPERATOR, "", false, "load", "eu-west-1", "many").code());
    Run unknown = run(OPERATOR, "", false, "load", "nowhere", "1");
    assertEquals(CtlMain.FAILED, unknown.code());
    assertTrue(unknown.err().contains("nowhere"), unknown.err());
    assertEquals(850.0, f.store.current().health().poolLoad("eu-west-1"));
  }

  @Test
  void auditSwitchesAndExplainPrintTablesOrJson() throws Exception {
    ok(OPERATOR, "freeze", "-r", "incident 9");
    Run audit = ok(VIEWER, "audit", "--service", "app.example.com");
    assertFalse(audit.out().contains("incident 9"), "a global freeze has no service");
    Run all = ok(VIEWER, "audit", "--actor", "otto", "--limit", "5");
    assertTrue(
        all.out()
            .matches("(?s).*otto\\s+operator\\s+freeze\\s+all services\\s+1->2\\s+incident 9.*"),
        all.out());
    assertEquals(1, ok(VIEWER, "audit", "--json").json().get("events").size());
    assertEquals(CtlMain.USAGE, run(VIEWER, "", false, "audit", "--from", "yesterday").code());
    JsonNode since = ok(VIEWER, "audit", "--since", "1h", "--json").json();
    assertTrue(since.get("events").get(0).get("timeMillis").asLong() > 0);

    f.control.addSwitchRecord(
        new SwitchRecord(
            "sw-3",
            SERVICE,
            "probe: lon down",
            List.of("eu-west-1"),
            List.of("us-east-1"),
            1_800_000_000_000L,
            null,
            "running",
            List.of(Map.of("percent", 5)),
            Map.of("gate", "p99<200ms")));
    assertTrue(ok(VIEWER, "switches", "list").out().contains("probe: lon down"));
    Run show = ok(VIEWER, "switches", "show", "sw-3");
    assertTrue(show.out().contains("percent=5"), show.out());
    assertTrue(show.out().contains("gate=p99<200ms"));
    assertEquals(CtlMain.FAILED, run(VIEWER, "", false, "switches", "show", "sw-404").code());

    Run explain = ok(VIEWER, "explain", "app.example.com", "10.1.2.0/24");
    assertTrue(explain.out().contains("region eu-west (from network map)"), explain.out());
    assertTrue(
        explain.out().contains("answer: answer 192.0.2.11 ttl 60 pools eu-west-1 scope /16"),
        explain.out());
    assertEquals(
        "us-east-1",
        ok(VIEWER, "explain", "app.example.com", "10.2.0.1", "--json")
            .json()
            .get("decision")
            .get("pools")
            .get(0)
            .asText());
  }

  @Test
  void reloadPrintsEveryProblemOfAnInvalidConfig() {
    f.reloader.failWith(
        List.of(
            new ConfigProblem(
                "sluice.yaml",
                "pools.eu-west-1.endpoints[0].address",
                "must be an IP address, was 'x'")));
    Run bad = run(ADMIN, "", false, "reload", "--yes");
    assertEquals(CtlMain.FAILED, bad.code());
    assertTrue(bad.err().contains("running configuration is kept"), bad.err());
    assertTrue(
        bad.err().contains("pools.eu-west-1.endpoints[0].address: must be an IP address, was 'x'"),
        bad.err());
    f.reloader.failWith(null);
    assertTrue(ok(ADMIN, "reload", "--yes").out().contains("reloaded by ada"));
    assertEquals(
        CtlMain.REFUSED,
        run(OPERATOR, "", false, "reload", "--yes").code(),
        "operators may not reload");
  }

  @Test
  void verifyComparesDnsAnswersPerSubnetWithThePlan() throws Exception {
    dnsAnswers.put(
        "10.1.0.0/16", new DnsVerifier.DnsAnswer("NOERROR", List.of("192.0.2.11"), 60, 16));
    dnsAnswers.put(
        "10.2.0.0/16", new DnsVerifier.DnsAnswer("NOERROR", List.of("198.51.100.21"), 60, 16));
    Run good = ok(VIEWER, "verify", "app.example.com", "--dns", "127.0.0.1:5353");
    assertTrue(good.out().contains("all 2 subnets match the plan"), good.out());
    assertEquals(
        List.of(
            "127.0.0.1:5353 app.example.com. A 10.1.0.0/16",
            "127.0.0.1:5353 app.example.com. A 10.2.0.0/16"),
        dnsQueries);

    dnsAnswers.put(
        "10.2.0.0/16", new DnsVerifier.DnsAnswer("NOERROR", List.of("192.0.2.12"), 60, 16));
    Run bad =
        run(VIEWER, "", false, "verify", "app.example.com", "--dns", "127.0.0.1:5353", "--json");
    assertEquals(CtlMain.FAILED, bad.code());
    JsonNode j = bad.json();
    assertFalse(j.get("ok").asBoolean());
    assertTrue(j.get("results").get(0).get("ok").asBoolean());
    assertEquals("eu-west-1", j.get("results").get(1).get("gotPools").get(0).asText());
    assertEquals("pools outside the plan", j.get("results").get(1).get("note").asText());

    Run timeout =
        run(
            VIEWER,
            "",
            false,
            "verify",
            "app.example.com",
            "--subnet",
            "10.9.0.0/24",
            "--dns",
            "127.0.0.1:5353");
    assertEquals(CtlMain.FAILED, timeout.code());
    assertTrue(timeout.out().contains("query failed: timed out"), timeout.out());
    assertEquals(
        CtlMain.USAGE,
        run(VIEWER, "", false, "verify", "app.example.com", "--dns", "host:99999").code());
  }

  @Test
  void theTokenCanComeFromAFileAfterEveryOtherSource(@TempDir Path dir) throws Exception {
    Path tokenFile = ownerOnly(dir.resolve("admin.token"), VIEWER + "\n");
    String url = f.baseUrl();
    assertEquals(
        0,
        runWithEnv(
                Map.of("SLUICE_ADMIN_URL", url),
                "",
                false,
                "status",
                "--token-file",
                "" + tokenFile)
            .code());
    assertEquals(
        0,
        runWithEnv(
                Map.of("SLUICE_ADMIN_URL", url, "SLUICE_TOKEN_FILE", tokenFile.toString()),
                "",
                false,
                "status")
            .code());
    assertEquals(
        CtlMain.REFUSED,
        runWithEnv(
                Map.of(
                    "SLUICE_ADMIN_URL",
                    url,
                    "SLUICE_TOKEN",
                    "chosen-by-the-operator",
                    "SLUICE_TOKEN_FILE",
                    tokenFile.toString()),
                "",
                false,
                "status")
            .code(),
        "SLUICE_TOKEN beats SLUICE_TOKEN_FILE");
    Path conf = dir.resolve("ctl.properties");
    Files.writeString(conf, "token=from-the-config-file\n");
    assertEquals(
        CtlMain.REFUSED,
        runWithEnv(
                Map.of("SLUICE_ADMIN_URL", url, "SLUICE_TOKEN_FILE", tokenFile.toString()),
                "",
                false,
                "status",
                "--config",
                conf.toString())
            .code(),
        "the config file's token beats SLUICE_TOKEN_FILE");
    assertEquals(
        0,
        runWithEnv(
                Map.of("SLUICE_ADMIN_URL", url, "SLUICE_TOKEN", "not-this-one"),
                "",
                false,
                "status",
                "--token-file",
                tokenFile.toString())
            .code(),
        "the --token-file flag beats the environment");

    Run missing =
        runWithEnv(
            Map.of("SLUICE_ADMIN_URL", url, "SLUICE_TOKEN_FILE", dir.resolve("nope").toString()),
            "",
            false,
            "status");
    assertEquals(CtlMain.USAGE, missing.code());
    assertTrue(missing.err().contains("SLUICE_TOKEN_FILE: token file not found: "), missing.err());
    Path empty = ownerOnly(dir.resolve("empty.token"), "\n");
    Run blank =
        runWithEnv(
            Map.of("SLUICE_ADMIN_URL", url), "", false, "status", "--token-file", "" + empty);
    assertEquals(CtlMain.USAGE, blank.code());
    assertTrue(
        blank.err().contains("--token-file: token file " + empty + " is empty"), blank.err());
  }

  @Test
  void aTokenFileOtherUsersCanReadIsRefused(@TempDir Path dir) throws Exception {
    Path tokenFile = ownerOnly(dir.resolve("admin.token"), VIEWER + "\n");
    for (String mode : List.of("rw-r-----", "rw----r--", "rw-rw-rw-")) {
      Files.setPosixFilePermissions(tokenFile, PosixFilePermissions.fromString(mode));
      Run r =
          runWithEnv(
              Map.of("SLUICE_ADMIN_URL", f.baseUrl()),
              "",
              false,
              "status",
              "--token-file",
              tokenFile.toString());
      assertEquals(CtlMain.USAGE, r.code(), mode);
      assertTrue(
          r.err().contains("is accessible to other users (mode " + mode + ")")
              && r.err().contains("chmod 600 " + tokenFile),
          r.err());
    }
  }

  /** Writes {@code text} to a new file readable by its owner only, as a token file must be. */
  private static Path ownerOnly(Path file, String text) throws IOException {
    Files.createFile(
        file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    Files.writeString(file, text);
    return file;
  }

  /**
   * Against a real TLS listener whose certificate a private CA signed: it fails with a pointer to
   * {@code --ca-file} until the CA is given by flag, environment or config file key.
   */
  @Test
  void ctlTrustsAPrivateCaFromFlagEnvironmentOrConfigFile(@TempDir Path dir) throws Exception {
    TestCertificate ca = TestCertificate.create(dir);
    SluiceConfig config = AdminFixture.config(ca.adminTls());
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        AdminServer server = AdminFixture.listenerOnly(config, metrics)) {
      Map<String, String> env = new HashMap<>();
      env.put("SLUICE_ADMIN_URL", "https://127.0.0.1:" + server.port());
      env.put("SLUICE_TOKEN", AdminFixture.VIEWER);

      Run untrusted = runWithEnv(env, "", false, "status", "--json");
      assertEquals(CtlMain.FAILED, untrusted.code(), untrusted.err());
      assertTrue(
          untrusted.err().contains("TLS handshake with https://127.0.0.1:"), untrusted.err());
      assertTrue(untrusted.err().contains("--ca-file"), untrusted.err());

      Run flag =
          runWithEnv(env, "", false, "status", "--json", "--ca-file", ca.certFile().toString());
      assertEquals(0, flag.code(), flag.err());
      assertTrue(flag.out().contains("app.example.com."), flag.out());

      Path conf = dir.resolve("ctl.properties");
      Files.writeString(conf, "caFile=admin.crt\n");
      Run fromConfig = runWithEnv(env, "", false, "status", "--json", "--config", conf.toString());
      assertEquals(
          0, fromConfig.code(), "caFile= is relative to the config file: " + fromConfig.err());

      Map<String, String> withEnv = new HashMap<>(env);
      withEnv.put("SLUICE_CA_FILE", ca.certFile().toString());
      assertEquals(0, runWithEnv(withEnv, "", false, "status", "--json").code());

      Path notPem = Files.writeString(dir.resolve("bad.crt"), "not a certificate\n");
      Run bad = runWithEnv(env, "", false, "status", "--ca-file", notPem.toString());
      assertEquals(CtlMain.USAGE, bad.code());
      assertTrue(bad.err().contains("CA file " + notPem), bad.err());
    }
  }

  @Test
  void aRefusedCommandPrintsEveryProblemWithItsField() {
    Run r =
        run(
            OPERATOR,
            "",
            false,
            "move",
            "start",
            "app.example.com",
            "--from",
            "eu-west-1",
            "--to",
            "mars-1",
            "--steps",
            "10,20,10,100",
            "--region",
            "moon",
            "--yes");
    assertEquals(CtlMain.FAILED, r.code());
    List<String> lines = r.err().lines().toList();
    assertEquals("sluice ctl: error 400: the request has 3 problems:", lines.get(0), r.err());
    assertTrue(lines.get(1).startsWith("  to[0]: 'mars-1' is not a pool of"), r.err());
    assertEquals("  steps[2]: must be greater than the step before (20), was 10", lines.get(2));
    assertTrue(lines.get(3).startsWith("  region: unknown region 'moon'"), r.err());
    assertTrue(f.control.calls().isEmpty());
  }

  @Test
  void exitCodesForRefusalsUsageAndFailures() {
    assertEquals(CtlMain.REFUSED, run("wrong-token", "", false, "status").code());
    Run forbidden = run(VIEWER, "", false, "rollback", "--all");
    assertEquals(CtlMain.REFUSED, forbidden.code());
    assertTrue(forbidden.err().contains("refused: role 'viewer' may not do this"), forbidden.err());
    Run noToken = run(null, "", false, "status");
    assertEquals(CtlMain.USAGE, noToken.code());
    assertTrue(noToken.err().contains("no token"));
    assertEquals(CtlMain.USAGE, run(VIEWER, "", false, "status", "--bogus").code());
    assertEquals(CtlMain.USAGE, run(VIEWER, "", false, "frobnicate").code());
    Map<String, String> env =
        Map.of("SLUICE_ADMIN_URL", "http://127.0.0.1:1", "SLUICE_TOKEN", VIEWER);
    Run down = runWithEnv(env, "", false, "status");
    assertEquals(CtlMain.FAILED, down.code());
    assertTrue(down.err().contains("cannot connect"), down.err());
  }

  @Test
  void serverAndTokenComeFromFlagsThenEnvironmentThenConfigFile(@TempDir Path dir)
      throws Exception {
    Path conf = dir.resolve("ctl.properties");
    Files.writeString(conf, "url=" + f.baseUrl() + "\ntoken=" + VIEWER + "\n");
    assertEquals(0, runWithEnv(Map.of(), "", false, "status", "--config", conf.toString()).code());
    assertEquals(
        0, runWithEnv(Map.of("SLUICE_CTL_CONFIG", conf.toString()), "", false, "status").code());
    Path home = dir.resolve("home");
    Files.createDirectories(home.resolve(".config/sluice"));
    Files.copy(conf, home.resolve(".config/sluice/ctl.properties"));
    assertEquals(0, runWithEnv(Map.of("HOME", home.toString()), "", false, "status").code());
    assertEquals(
        CtlMain.REFUSED,
        runWithEnv(
                Map.of("SLUICE_TOKEN", "env-wins"),
                "",
                false,
                "status",
                "--config",
                conf.toString())
            .code(),
        "the environment overrides the file");
    assertEquals(
        0,
        runWithEnv(
                Map.of("SLUICE_TOKEN", "env-wins"),
                "",
                false,
                "status",
                "--config",
                conf.toString(),
                "--token",
                VIEWER)
            .code(),
        "a flag overrides the environment");
    assertEquals(
        CtlMain.USAGE,
        runWithEnv(Map.of(), "", false, "status", "--config", dir.resolve("none").toString())
            .code());
  }

  @Test
  void hashTokenPrintsTheConfigHash() {
    Run r = run(null, "s3cret\n", false, "hash-token");
    assertEquals(TokenAuthenticator.hash("s3cret") + System.lineSeparator(), r.out());
    Run g = run(null, "", false, "hash-token", "--generate");
    String[] lines = g.out().split("\\R");
    String token = lines[0].substring("token:  ".length());
    assertEquals("sha256: " + TokenAuthenticator.hash(token), lines[1]);
  }

  @Test
  void everyCommandHasHelpWithAnExample() {
    CommandLine root = CtlMain.commandLine(new SluiceCtl());
    List<CommandLine> all = new ArrayList<>();
    collect(root, all);
    assertTrue(all.size() >= 24, "commands: " + all.size());
    for (CommandLine c : all) {
      String[] path =
          c.getCommandSpec().qualifiedName(" ").replaceFirst("^sluice ctl ?", "").split(" ");
      List<String> args = new ArrayList<>();
      for (String p : path) {
        if (!p.isEmpty()) {
          args.add(p);
        }
      }
      args.add("--help");
      Run r = run(null, "", false, args.toArray(String[]::new));
      assertEquals(0, r.code(), String.join(" ", args));
      assertTrue(r.out().contains("Usage: sluice ctl"), r.out());
      assertTrue(r.out().contains("Example:"), "no example in " + String.join(" ", args));
    }
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    into.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> collect(s, into));
  }

  @Test
  void aRunBuildsOnlyTheCommandItNamesAndHelpOrATypoListsThemAll() {
    assertEquals("rollback", CtlMain.invoked(new String[] {"rollback", "app.example.com"}));
    // An option's value is not the command, even when it reads like one.
    assertEquals(
        "rollback",
        CtlMain.invoked(new String[] {"--config", "status", "--json", "rollback", "--all"}));
    assertEquals(null, CtlMain.invoked(new String[] {"--help", "rollback"}));
    assertEquals(null, CtlMain.invoked(new String[] {"rolback", "app.example.com"}));
    assertEquals(null, CtlMain.invoked(new String[] {"--json"}));

    Run help = ok(null, "--help");
    CtlMain.commandLine(new SluiceCtl())
        .getSubcommands()
        .forEach(
            (name, c) -> {
              assertEquals(
                  c.getCommandSpec().userObject().getClass().getAnnotation(Command.class).name(),
                  name);
              assertTrue(help.out().contains("  " + name + " "), name + " not in\n" + help.out());
            });
    // Commands are found by their class, without a list: the newest ones are there too.
    assertTrue(help.out().contains("  probes "), help.out());
    assertTrue(help.out().contains("  watch "), help.out());
    Run typo = run(null, "", false, "rolback", "app.example.com");
    assertEquals(CtlMain.USAGE, typo.code(), typo.err());
    assertTrue(typo.err().contains("rollback"), typo.err());
    // The one command added still inherits the global options and their help.
    Run rollbackHelp = ok(null, "rollback", "--help");
    assertTrue(rollbackHelp.out().contains("--token-file"), rollbackHelp.out());
    Run rolled = ok(OPERATOR, "--json", "rollback", SERVICE, "--reason", "test");
    assertTrue(rolled.out().contains("\"snapshotVersion\""), rolled.out());
  }

  @Test
  void theOptionsThatTakeAValueAreTheRootsOptionsOfArityOne() {
    Set<String> withValue = new HashSet<>();
    for (CommandLine.Model.OptionSpec o :
        new CommandLine(new SluiceCtl()).getCommandSpec().options()) {
      if (o.arity().max() > 0) {
        withValue.addAll(List.of(o.names()));
      }
    }
    assertEquals(withValue, SluiceCtl.OPTIONS_WITH_VALUE);
  }
}
