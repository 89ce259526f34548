package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.core.testing.ChildJvm;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A real child JVM, started plainly and under {@code nohup}: the start-up log says whether SIGHUP
 * reload is active, and a real {@code kill -HUP} reloads only when it says so.
 */
class HangupReloadTest {

  private static List<String> run(boolean nohup) throws Exception {
    assumeTrue(Files.isExecutable(Path.of("/usr/bin/nohup")), "no nohup on this system");
    List<String> cmd = new ArrayList<>();
    if (nohup) {
      cmd.add("/usr/bin/nohup");
    }
    cmd.addAll(ChildJvm.command(64, SluiceChild.LOGGING, HangupChild.class));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    List<String> lines = new ArrayList<>();
    try (BufferedReader in =
        new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
      String line;
      while ((line = in.readLine()) != null) {
        lines.add(line);
        if (line.startsWith("status ")) {
          break;
        }
      }
      new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor();
      if (line != null && line.equals("status ACTIVE")) {
        lines.add(in.readLine()); // the reload's own line
      }
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
    return lines;
  }

  @Test
  void aPlainStartSaysSighupReloadIsActiveAndReloads() throws Exception {
    List<String> lines = run(false);
    String all = String.join("\n", lines);
    // A child inherits an ignored SIGHUP: when the build itself runs under nohup, say so.
    assumeTrue(!all.contains("status IGNORED"), "this build runs with SIGHUP ignored (nohup?)");
    assertTrue(all.contains("SIGHUP reload is active"), all);
    assertEquals("status ACTIVE", lines.get(lines.size() - 2), all);
    assertEquals("reloaded by SIGHUP", lines.get(lines.size() - 1), all);
  }

  @Test
  void underNohupTheLogSaysSighupIsIgnoredAndNamesCtlReload() throws Exception {
    List<String> lines = run(true);
    String all = String.join("\n", lines);
    assertTrue(all.contains("SIGHUP reload is NOT active"), all);
    assertTrue(all.contains("sluice ctl reload"), all);
    assertEquals("status IGNORED", lines.get(lines.size() - 1), all);
  }
}
