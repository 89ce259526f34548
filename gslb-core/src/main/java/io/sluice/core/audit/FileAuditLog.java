package io.sluice.core.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.AuditSink;
import io.sluice.core.spi.Ticker;
import io.sluice.core.store.Directories;
import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The durable audit log: one JSON object per line in {@code audit.jsonl}, each forced to disk
 * before {@link #append} returns. When the file passes {@code maxBytes} it is renamed to {@code
 * audit-<first seq>.jsonl} and a new one is started; the oldest files beyond {@code maxFiles} are
 * deleted. A torn last line left by a crash is cut off on open.
 */
public final class FileAuditLog implements AuditSink, Closeable {
  private static final String CURRENT = "audit.jsonl";
  private static final ObjectMapper JSON = JsonMapper.builder().build();

  private final Path dir;
  private final Ticker ticker;
  private final long maxBytes;
  private final int maxFiles;
  // Plain file I/O: an interrupted caller would close an NIO channel for every later append.
  private RandomAccessFile channel;
  private long size;
  private long seq;
  private long firstSeqInCurrent;

  private FileAuditLog(Path dir, Ticker ticker, long maxBytes, int maxFiles) throws IOException {
    this.dir = dir;
    this.ticker = ticker;
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
    Files.createDirectories(dir);
    openCurrent();
    List<AuditEvent> tail = readFile(dir.resolve(CURRENT));
    if (tail.isEmpty()) {
      List<Path> rotated = rotatedFiles();
      if (!rotated.isEmpty()) {
        List<AuditEvent> prev = readFile(rotated.get(rotated.size() - 1));
        seq = prev.isEmpty() ? 0 : prev.get(prev.size() - 1).seq();
      }
      firstSeqInCurrent = seq + 1;
    } else {
      seq = tail.get(tail.size() - 1).seq();
      firstSeqInCurrent = tail.get(0).seq();
    }
  }

  /** Opens the log in {@code dir}, rotating at {@code maxBytes} and keeping {@code maxFiles}. */
  public static FileAuditLog open(Path dir, Ticker ticker, long maxBytes, int maxFiles)
      throws IOException {
    if (maxBytes < 1024) {
      throw new IllegalArgumentException("maxBytes must be at least 1024, was " + maxBytes);
    }
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
    return new FileAuditLog(dir, ticker, maxBytes, maxFiles);
  }

  /** Opens the log in {@code dir}, rotating at 16 MiB and keeping 10 files. */
  public static FileAuditLog open(Path dir, Ticker ticker) throws IOException {
    return open(dir, ticker, 16L << 20, 10);
  }

  private void openCurrent() throws IOException {
    Path file = dir.resolve(CURRENT);
    channel = new RandomAccessFile(file.toFile(), "rw");
    long length = channel.length();
    // Keep whole lines only: a crash can leave a partial last line without its newline.
    long keep = length;
    if (length > 0) {
      keep = 0;
      byte[] all = Files.readAllBytes(file);
      for (int i = all.length - 1; i >= 0; i--) {
        if (all[i] == '\n') {
          keep = i + 1;
          break;
        }
      }
    }
    if (keep < length) {
      channel.setLength(keep);
      channel.getFD().sync();
    }
    size = keep;
  }

  @Override
  public synchronized long append(
      Actor actor,
      String action,
      String service,
      String reason,
      long versionBefore,
      long versionAfter,
      Map<String, Object> details) {
    AuditEvent e =
        new AuditEvent(
            seq + 1,
            ticker.currentTimeMillis(),
            actor.name(),
            actor.role(),
            action,
            service,
            reason,
            versionBefore,
            versionAfter,
            details == null ? Map.of() : details);
    byte[] line;
    try {
      line = (JSON.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException ex) {
      throw new IllegalArgumentException("audit details are not serialisable: " + ex, ex);
    }
    try {
      if (size > 0 && size + line.length > maxBytes) {
        rotate();
      }
      channel.seek(size);
      channel.write(line);
      channel.getFD().sync();
      size += line.length;
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write the audit log in " + dir, ex);
    }
    seq = e.seq();
    return seq;
  }

  private void rotate() throws IOException {
    channel.close();
    Path target = dir.resolve(String.format("audit-%012d.jsonl", firstSeqInCurrent));
    Files.move(dir.resolve(CURRENT), target, StandardCopyOption.ATOMIC_MOVE);
    firstSeqInCurrent = seq + 1;
    List<Path> rotated = rotatedFiles();
    for (int i = 0; i < rotated.size() - (maxFiles - 1); i++) {
      Files.deleteIfExists(rotated.get(i));
    }
    openCurrent();
    Directories.fsync(dir);
  }

  private List<Path> rotatedFiles() throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.filter(
              p -> {
                String n = p.getFileName().toString();
                return n.startsWith("audit-") && n.endsWith(".jsonl");
              })
          .sorted(Comparator.comparing(p -> p.getFileName().toString()))
          .toList();
    }
  }

  private static List<AuditEvent> readFile(Path file) throws IOException {
    List<AuditEvent> out = new ArrayList<>();
    if (!Files.exists(file)) {
      return out;
    }
    for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
      if (line.isBlank()) {
        continue;
      }
      try {
        out.add(JSON.readValue(line, AuditEvent.class));
      } catch (JsonProcessingException e) {
        // A damaged line is skipped rather than hiding every event after it.
      }
    }
    return out;
  }

  /** Events matching {@code q}, newest first, across the current and rotated files. */
  public synchronized List<AuditEvent> query(AuditQuery q) {
    List<AuditEvent> out = new ArrayList<>();
    int skipped = 0;
    try {
      List<Path> files = new ArrayList<>(rotatedFiles());
      files.add(dir.resolve(CURRENT));
      for (int f = files.size() - 1; f >= 0 && out.size() < q.limit(); f--) {
        List<AuditEvent> events = readFile(files.get(f));
        for (int i = events.size() - 1; i >= 0 && out.size() < q.limit(); i--) {
          AuditEvent e = events.get(i);
          if (matches(q, e)) {
            if (skipped < q.offset()) {
              skipped++;
            } else {
              out.add(e);
            }
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the audit log in " + dir, e);
    }
    return out;
  }

  private static boolean matches(AuditQuery q, AuditEvent e) {
    return (q.service() == null || q.service().equals(e.service()))
        && (q.actor() == null || q.actor().equals(e.actor()))
        && (q.fromMillis() == null || e.timeMillis() >= q.fromMillis())
        && (q.toMillis() == null || e.timeMillis() <= q.toMillis());
  }

  /** The sequence number of the last event written. */
  public synchronized long lastSeq() {
    return seq;
  }

  @Override
  public synchronized void close() throws IOException {
    channel.close();
  }
}
