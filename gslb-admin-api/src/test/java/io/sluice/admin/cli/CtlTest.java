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
import io.sluice.admin.testing.AdminFixture;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.control.SwitchRecord;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

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
            tty);
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
        table.out().matches("(?s).*lon-b\\s+down\\s+-\\s+-\\s+no\\s+connect refused.*"),
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
    assertTrue(drill.out().contains("percent: 5.0"), drill.out());
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
  void auditSwitchesAndExplainPrintTablesOrJson() throws Exception {
    ok(OPERATOR, "freeze", "-r", "incident 9");
    Run audit = ok(VIEWER, "audit", "--service", "app.example.com");
    assertFalse(audit.out().contains("incident 9"), "a global freeze has no service");
    Run all = ok(VIEWER, "audit", "--actor", "otto", "--limit", "5");
    assertTrue(
        all.out().matches("(?s).*otto\\s+operator\\s+freeze\\s+-\\s+1->2\\s+incident 9.*"),
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
    Path tokenFile = dir.resolve("admin.token");
    Files.writeString(tokenFile, VIEWER + "\n");
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
    Path empty = dir.resolve("empty.token");
    Files.writeString(empty, "\n");
    Run blank =
        runWithEnv(
            Map.of("SLUICE_ADMIN_URL", url), "", false, "status", "--token-file", "" + empty);
    assertEquals(CtlMain.USAGE, blank.code());
    assertTrue(
        blank.err().contains("--token-file: token file " + empty + " is empty"), blank.err());
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
    CommandLine root = new CommandLine(new SluiceCtl());
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
}
