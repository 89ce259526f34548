package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.server.app.Main;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice ctl} starts lean (docs/cli.md, "Start-up"): a fresh JVM running {@code Main ctl
 * rollback} against a running node makes its change while configuring no logging, setting up no TLS
 * for an {@code http://} URL, making no Jackson {@code ObjectMapper} and building no command but
 * the one it runs. What it loads is read from the JVM's own class-loading log, not timed.
 */
class CtlStartupTest {
  @TempDir Path dir;

  @Test
  void aRollbackLoadsNeitherLoggingNorTlsNorOtherCommands() throws Exception {
    try (LiveNode node = LiveNode.start(dir, AdminEndToEndTest.CONFIG)) {
      Path classLog = dir.resolve("classes.log");
      Path out = dir.resolve("out.txt");
      Path err = dir.resolve("err.txt");
      ProcessBuilder pb =
          new ProcessBuilder(
                  Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                  "-Xlog:class+load=info:file=" + classLog,
                  "-cp",
                  System.getProperty("java.class.path"),
                  Main.class.getName(),
                  "ctl",
                  "--url",
                  node.adminUrl(),
                  "rollback",
                  "app.example.test",
                  "--reason",
                  "startup test")
              .redirectOutput(out.toFile())
              .redirectError(err.toFile());
      pb.environment().put("SLUICE_TOKEN", node.token);
      Process ctl = pb.start();
      assertTrue(ctl.waitFor(60, TimeUnit.SECONDS), "ctl did not exit");
      String stdout = Files.readString(out, StandardCharsets.UTF_8);
      String stderr = Files.readString(err, StandardCharsets.UTF_8);
      assertEquals(0, ctl.exitValue(), stdout + stderr);
      assertTrue(stdout.contains("snapshot version"), stdout);
      assertEquals("", stderr);

      List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8);
      // The request was sent and its answer read, where the JDK's HTTP client asks its logger.
      assertTrue(
          loaded.stream()
              .anyMatch(l -> l.contains(" sun.net.www.protocol.http.HttpURLConnection ")),
          "no HTTP request was made");
      for (String avoided :
          List.of(
              " ch.qos.logback.",
              " org.slf4j.",
              " javax.net.ssl.SSLContext ",
              " java.net.http.",
              " com.fasterxml.jackson.databind.ObjectMapper ",
              " io.sluice.admin.cli.DrillCommand ",
              " io.sluice.admin.cli.ConfigCommand$Push ")) {
        assertTrue(
            loaded.stream().noneMatch(l -> l.contains(avoided)),
            "ctl loaded"
                + avoided
                + "…: "
                + loaded.stream().filter(l -> l.contains(avoided)).findFirst().orElse(""));
      }
    }
  }
}
