package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.testing.LoopbackPorts;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice ctl} starts lean: a fresh JVM running {@code Main ctl …} up to its API call
 * configures no logging and sets up no TLS for an {@code http://} URL (docs/cli.md, "Start-up").
 * What it loads is read from the JVM's own class-loading log, not timed.
 */
class CtlStartupTest {
  @TempDir Path dir;

  @Test
  void ctlLoadsNeitherLoggingNorTls() throws Exception {
    // Nothing listens there: a port below the ephemeral range, so no client connection holds it.
    int closedPort = LoopbackPorts.reserve();
    Path classLog = dir.resolve("classes.log");
    Path err = dir.resolve("err.txt");
    Process ctl =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xlog:class+load=info:file=" + classLog,
                "-cp",
                System.getProperty("java.class.path"),
                Main.class.getName(),
                "ctl",
                "--url",
                "http://127.0.0.1:" + closedPort,
                "--token",
                "t",
                "rollback",
                "app.example.com")
            .redirectOutput(dir.resolve("out.txt").toFile())
            .redirectError(err.toFile())
            .start();
    assertTrue(ctl.waitFor(60, TimeUnit.SECONDS), "ctl did not exit");
    String stderr = Files.readString(err, StandardCharsets.UTF_8);
    assertEquals(1, ctl.exitValue(), stderr);
    assertTrue(stderr.contains("cannot connect"), stderr);

    List<String> loaded = Files.readAllLines(classLog, StandardCharsets.UTF_8);
    assertTrue(
        loaded.stream().anyMatch(l -> l.contains(" io.sluice.admin.cli.ApiClient ")),
        "the API call was not made");
    for (String avoided :
        List.of(
            " ch.qos.logback.", " org.slf4j.", " javax.net.ssl.SSLContext ", " java.net.http.")) {
      assertTrue(
          loaded.stream().noneMatch(l -> l.contains(avoided)),
          "ctl loaded"
              + avoided
              + "…: "
              + loaded.stream().filter(l -> l.contains(avoided)).findFirst().orElse(""));
    }
  }
}
