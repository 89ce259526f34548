package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.store.DiskWrites;
import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Finished switch records, one JSON object per line in {@code switches.jsonl}, each forced to disk
 * before {@link #append} returns. The newest {@code keep} records are held in memory for queries; a
 * record written twice (a crash between this log and the state journal) keeps its last version.
 */
final class SwitchLog implements Closeable {
  private final Path file;
  private final DiskWrites writes;
  private final ObjectMapper json;
  private final RandomAccessFile channel;
  private final int keep;
  private final LinkedHashMap<String, SwitchRecord> recent = new LinkedHashMap<>();
  private long size;

  SwitchLog(Path file, ObjectMapper json, int keep, DiskWrites writes) throws IOException {
    this.file = file;
    this.writes = writes;
    this.json = json;
    this.keep = keep;
    Files.createDirectories(file.getParent());
    this.channel = new RandomAccessFile(file.toFile(), "rw");
    byte[] all = Files.readAllBytes(file);
    int end = 0;
    int start = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        String line = new String(all, start, i - start, StandardCharsets.UTF_8);
        try {
          remember(json.readValue(line, SwitchRecord.class));
        } catch (IOException e) {
          // A damaged line is skipped; the ones after it are still read.
        }
        start = i + 1;
        end = i + 1;
      }
    }
    if (end < all.length) {
      channel.setLength(end);
      channel.getFD().sync();
    }
    size = end;
  }

  private void remember(SwitchRecord r) {
    recent.remove(r.id());
    recent.put(r.id(), r);
    while (recent.size() > keep) {
      recent.remove(recent.keySet().iterator().next());
    }
  }

  synchronized void append(SwitchRecord r) throws IOException {
    byte[] line = (json.writeValueAsString(r) + "\n").getBytes(StandardCharsets.UTF_8);
    writes.appendForced(file, channel, size, line, line.length);
    size += line.length;
    remember(r);
  }

  /** Finished records by id, oldest first. */
  synchronized Map<String, SwitchRecord> byId() {
    return new LinkedHashMap<>(recent);
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }
}
