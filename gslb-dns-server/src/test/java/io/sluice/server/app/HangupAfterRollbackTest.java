package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.admin.cli.CtlIo;
import io.sluice.admin.cli.CtlMain;
import io.sluice.dns.client.DnsjavaVerifier;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.Reader;
import java.io.StringReader;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real node process and a real {@code kill -HUP} after a {@code config rollback}: a SIGHUP of the
 * unchanged file leaves the restored version answering (and the log says why), a SIGHUP after the
 * file was edited applies the file as a new version.
 */
class HangupAfterRollbackTest {
  @TempDir Path dir;
  @TempDir Path pushed;

  private static String yaml() {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        zones:
          - origin: example.test.
            file: static.zone
        """;
  }

  private static String zone(String www) {
    return """
        $TTL 300
        @   IN SOA ns1.example.test. h.example.test. 1 7200 1800 1209600 60
        @   IN NS  ns1.example.test.
        ns1 IN A   192.0.2.53
        www IN A   %s
        """
        .formatted(www);
  }

  @Test
  void sighupOfAnUnchangedFileKeepsTheRollbackAndOfAnEditedFileAppliesIt() throws Exception {
    assumeTrue(
        Files.isExecutable(Path.of("/bin/kill")) || Files.isExecutable(Path.of("/usr/bin/kill")),
        "no kill");
    Files.writeString(dir.resolve("static.zone"), zone("192.0.2.1"));
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(config, yaml());
    Path log = dir.resolve("node.log");
    Process node =
        new ProcessBuilder(SluiceChild.command(128, "--config", config.toString()))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      Path stateDir = dir.resolve("state");
      awaitLog(log, "SIGHUP reload is");
      assumeTrue(
          Files.readString(log).contains("SIGHUP reload is active"),
          "this build runs with SIGHUP ignored (nohup?)");
      InetSocketAddress dns = awaitDns(stateDir);
      assertEquals("192.0.2.1", www(dns));

      Files.writeString(pushed.resolve("static.zone"), zone("192.0.2.2"));
      Files.writeString(pushed.resolve("sluice.yaml"), yaml());
      assertEquals(
          CtlMain.OK, ctl(stateDir, "config", "push", pushed.resolve("sluice.yaml").toString()));
      Files.writeString(pushed.resolve("static.zone"), zone("192.0.2.3"));
      assertEquals(
          CtlMain.OK, ctl(stateDir, "config", "push", pushed.resolve("sluice.yaml").toString()));
      assertEquals("192.0.2.3", www(dns));
      assertEquals(CtlMain.OK, ctl(stateDir, "config", "rollback", "2", "-r", "3 was wrong"));
      assertEquals("192.0.2.2", www(dns));

      hangup(node);
      awaitLog(log, "is unchanged since it was last read; version 4 (rollback by");
      assertEquals("192.0.2.2", www(dns));

      Files.writeString(dir.resolve("static.zone"), zone("192.0.2.5"));
      hangup(node);
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
      while (!www(dns).equals("192.0.2.5")) {
        assertTrue(System.nanoTime() < deadline, Files.readString(log));
        Thread.sleep(50);
      }
      awaitLog(log, "supersedes version 4 (rollback by");
    } finally {
      node.destroy();
      if (!node.waitFor(20, TimeUnit.SECONDS)) {
        node.destroyForcibly();
      }
    }
  }

  private static void hangup(Process p) throws Exception {
    new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor();
  }

  private static void awaitLog(Path log, String text) throws Exception {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.readString(log).contains(text)) {
      assertTrue(System.nanoTime() < deadline, "no '" + text + "' in:\n" + Files.readString(log));
      Thread.sleep(50);
    }
  }

  private static InetSocketAddress awaitDns(Path stateDir) throws Exception {
    Path record = stateDir.resolve("node.properties");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (!Files.exists(record)) {
      assertTrue(System.nanoTime() < deadline, "the node never recorded its addresses");
      Thread.sleep(50);
    }
    Properties p = new Properties();
    try (Reader r = Files.newBufferedReader(record)) {
      p.load(r);
    }
    String[] hostPort = p.getProperty("dns").split(":");
    return new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1]));
  }

  private static String www(InetSocketAddress dns) throws Exception {
    SimpleResolver r = new SimpleResolver(dns);
    r.setTimeout(Duration.ofSeconds(3));
    Message m =
        r.send(
            Message.newQuery(
                Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN)));
    List<String> out = new ArrayList<>();
    for (Record rec : m.getSection(Section.ANSWER)) {
      out.add(rec.rdataToString());
    }
    return String.join(",", out);
  }

  private static int ctl(Path stateDir, String... args) {
    List<String> all = new ArrayList<>(List.of("--state-dir", stateDir.toString()));
    all.addAll(List.of(args));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    CtlIo io =
        new CtlIo(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")),
            Map.of(),
            false);
    int exit = CtlMain.run(all.toArray(String[]::new), io, new DnsjavaVerifier());
    if (exit != CtlMain.OK) {
      System.err.println(out.toString(StandardCharsets.UTF_8));
    }
    return exit;
  }
}
