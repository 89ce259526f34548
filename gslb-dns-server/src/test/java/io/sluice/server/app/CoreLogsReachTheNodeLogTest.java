package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.sluice.core.store.FileDurableLog;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * What the store logs through {@link System.Logger} (a torn journal tail cut at start) reaches the
 * node's SLF4J log, in its format, with its level, and with numbers as docs/state.md shows them.
 */
class CoreLogsReachTheNodeLogTest {
  @TempDir Path dir;

  @Test
  void aTornJournalTailIsAWarningInTheNodeLog() throws Exception {
    Path traffic = Files.createDirectories(dir.resolve("state").resolve("traffic"));
    Files.write(traffic.resolve("journal.log"), new byte[1290]);
    Logger journal = (Logger) LoggerFactory.getLogger("io.sluice.core.store.JournalFile");
    ListAppender<ILoggingEvent> seen = new ListAppender<>();
    seen.start();
    journal.addAppender(seen);
    try {
      FileDurableLog.open(traffic).close();
    } finally {
      journal.detachAppender(seen);
    }
    assertEquals(1, seen.list.size(), seen.list.toString());
    ILoggingEvent event = seen.list.get(0);
    assertEquals(Level.WARN, event.getLevel());
    assertTrue(
        event
            .getFormattedMessage()
            .equals(
                "journal "
                    + traffic.resolve("journal.log")
                    + ": cut a torn tail of 1290 bytes at byte 0 (an interrupted last write;"
                    + " 0 intact records kept)"),
        event.getFormattedMessage());
  }
}
