package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.store.StateCorruptException;
import io.sluice.server.app.Main;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * A running node's state directory damaged or full for real: a flipped byte in the middle of the
 * journal refuses the next start until {@code sluice state repair}; a full file system (a tiny
 * tmpfs, when the test may mount one) answers 507 and keeps nothing the caller was told failed.
 */
class StateDirectoryFaultsTest {
  @TempDir Path dir;

  private static String config(Path stateDir) {
    String yaml =
        AdminEndToEndTest.CONFIG.replace("stateDir: state\n", "stateDir: " + stateDir + "\n");
    assertTrue(yaml.contains(stateDir.toString()), "the shared configuration names its stateDir");
    return yaml;
  }

  /** Drains p-us on odd steps and undrains it on even ones; returns the HTTP reply. */
  private static LiveNode.Reply toggle(LiveNode node, int step) throws Exception {
    String verb = step % 2 == 1 ? "drain" : "undrain";
    return node.post("/api/v1/pools/p-us/" + verb, "{\"reason\":\"step " + step + "\"}");
  }

  private static boolean drained(LiveNode node) {
    return node.runtime.traffic().controller().state().drained().contains("p-us");
  }

  private static List<AuditEvent> audit(LiveNode node) {
    return node
        .runtime
        .traffic()
        .controlPlane()
        .audit(new AuditQuery(null, null, null, null, 0, 1000))
        .stream()
        .filter(e -> e.action().contains("drain"))
        .toList();
  }

  private static int frameStart(byte[] journal, int index) {
    int pos = 0;
    for (int i = 0; i < index; i++) {
      pos += 12 + ByteBuffer.wrap(journal).getInt(pos + 4);
    }
    return pos;
  }

  @Test
  void aFlippedByteInTheJournalRefusesTheStartUntilRepaired() throws Exception {
    Path state = dir.resolve("state");
    try (LiveNode node = LiveNode.start(dir, config(state))) {
      for (int step = 1; step <= 5; step++) {
        assertEquals(200, toggle(node, step).status());
      }
      assertTrue(drained(node));
    }
    Path journal = state.resolve("traffic/journal.log");
    byte[] bytes = Files.readAllBytes(journal);
    bytes[frameStart(bytes, 2) + 40] ^= 0x04;
    Files.write(journal, bytes);

    StateCorruptException e =
        assertThrows(StateCorruptException.class, () -> LiveNode.start(dir, config(state)));
    assertTrue(e.getMessage().contains("sluice state repair --state-dir " + state), e.getMessage());
    assertEquals(bytes.length, Files.size(journal), "the journal was not truncated");

    ByteArrayOutputStream out = new ByteArrayOutputStream();
    PrintStream saved = System.out;
    System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
    int exit;
    try {
      // The node's configuration names the state directory.
      exit =
          new CommandLine(new Main())
              .execute("state", "repair", "--config", dir.resolve("sluice.yaml").toString());
    } finally {
      System.setOut(saved);
    }
    String report = out.toString(StandardCharsets.UTF_8);
    assertEquals(0, exit, report);
    assertTrue(report.contains("damaged journal bytes at byte " + frameStart(bytes, 2)), report);
    assertTrue(report.contains("copies of the damaged files are in"), report);

    try (LiveNode node = LiveNode.start(dir, config(state))) {
      assertTrue(drained(node), "the newest acknowledged change survived the repair");
      assertEquals(5, audit(node).size(), "the audit log is untouched");
    }
  }

  @Test
  void aFullFileSystemAnswers507AndKeepsNothingThatFailed() throws Exception {
    Path state = dir.resolve("tmpfs");
    Files.createDirectories(state);
    assumeTrue(
        "root".equals(System.getProperty("user.name")),
        "SKIPPED: mounting a tiny tmpfs needs root (the file-layer test always runs)");
    Process mount =
        new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=512k", "tmpfs", state.toString())
            .redirectErrorStream(true)
            .start();
    assumeTrue(
        mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0,
        "SKIPPED: cannot mount a tmpfs here: "
            + new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    try {
      int acked = 0;
      LiveNode.Reply failed = null;
      try (LiveNode node = LiveNode.start(dir, config(state))) {
        assertEquals(200, toggle(node, ++acked).status());
        fill(state.resolve("filler"));
        for (int step = acked + 1; step < 200 && failed == null; step++) {
          LiveNode.Reply r = toggle(node, step);
          if (r.status() == 200) {
            acked = step;
          } else {
            failed = r;
          }
        }
        assertTrue(failed != null, "the full file system never refused a change");
        assertEquals(507, failed.status(), failed.body());
        assertTrue(failed.json().get("message").asText().startsWith("state directory full: "));
        assertEquals(acked % 2 == 1, drained(node), "nothing of the failed change is published");
        LiveNode.Reply ready = node.get("/readyz");
        assertEquals(503, ready.status(), ready.body());
        assertTrue(ready.json().get("store").asText().contains("state directory full"));
        assertTrue(
            node.get("/metrics").body().contains("sluice_state_store_healthy 0.0"),
            "the metric shows the store unhealthy");
      }
      Files.delete(state.resolve("filler"));
      try (LiveNode node = LiveNode.start(dir, config(state))) {
        assertEquals(acked % 2 == 1, drained(node), "the failed change did not come back");
        List<AuditEvent> events = audit(node);
        assertEquals(acked, events.size(), "one audit event per acknowledged change: " + events);
        assertEquals("step " + acked, events.get(0).reason());
        String failedReason = "step " + (acked + 1);
        assertFalse(
            events.stream().anyMatch(ev -> ev.reason().equals(failedReason)),
            "no audit event for the change that failed");
        assertEquals(200, node.get("/readyz").status());
      }
    } finally {
      new ProcessBuilder("umount", state.toString()).start().waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static void fill(Path filler) {
    byte[] chunk = new byte[4096];
    try (OutputStream o = Files.newOutputStream(filler, StandardOpenOption.CREATE_NEW)) {
      while (true) {
        o.write(chunk);
        o.flush();
      }
    } catch (IOException full) {
      // The file system is full now.
    }
  }
}
