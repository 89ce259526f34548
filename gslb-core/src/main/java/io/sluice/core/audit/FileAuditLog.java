package io.sluice.core.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.AuditQuery;
import io.sluice.core.control.AuditSink;
import io.sluice.core.control.EventTap;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.spi.Ticker;
import io.sluice.core.store.Directories;
import io.sluice.core.store.DiskWrites;
import java.io.Closeable;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * The durable audit log: one JSON object per line in {@code audit.jsonl}, each forced to disk
 * before {@link #append} returns. When the file passes {@code maxBytes} it is renamed to {@code
 * audit-<first seq>.jsonl} and a new one is started; the oldest files beyond {@code maxFiles} are
 * deleted. A torn last line left by a crash is cut off on open.
 *
 * <p>Appends are serialised; queries share no lock with them: they read the files through their own
 * handles, newest first, and parse only the lines that can match, so a viewer reading history never
 * delays a command that must be audited.
 */
public final class FileAuditLog implements AuditSink, Closeable {
  private static final String CURRENT = "audit.jsonl";
  private static final ObjectMapper JSON = JsonMapper.builder().build();
  private static final String REVISION = "revision";

  private final Path dir;
  private final Ticker ticker;
  private final long maxBytes;
  private final int maxFiles;
  private final DiskWrites writes;
  // Plain file I/O: an interrupted caller would close an NIO channel for every later append.
  private RandomAccessFile channel;
  private long size;
  private long seq;
  private long firstSeqInCurrent;
  private long lastRevision;
  // Rotated files never change: their indexes are built once, by queries, and shared by them.
  private final ConcurrentHashMap<Path, LineIndex> indexes = new ConcurrentHashMap<>();
  // Hears each event once it is durable (the webhook outbox).
  private volatile EventTap tap = EventTap.NONE;

  private FileAuditLog(Path dir, Ticker ticker, long maxBytes, int maxFiles, DiskWrites writes)
      throws IOException {
    this.dir = dir;
    this.writes = writes;
    this.ticker = ticker;
    this.maxBytes = maxBytes;
    this.maxFiles = maxFiles;
    Files.createDirectories(dir);
    openCurrent();
    // Only the ends of a file are parsed: a log at its maximum size opens in the time of a read.
    Ends tail = Ends.of(dir.resolve(CURRENT));
    lastRevision = tail.lastRevision();
    if (tail.last() == null) {
      List<Path> rotated = rotatedFiles();
      if (!rotated.isEmpty()) {
        Ends prev = Ends.of(rotated.get(rotated.size() - 1));
        seq = prev.last() == null ? 0 : prev.last().seq();
        lastRevision = prev.lastRevision();
      }
      firstSeqInCurrent = seq + 1;
    } else {
      seq = tail.last().seq();
      firstSeqInCurrent = tail.first().seq();
    }
  }

  /** Opens the log in {@code dir}, rotating at {@code maxBytes} and keeping {@code maxFiles}. */
  public static FileAuditLog open(Path dir, Ticker ticker, long maxBytes, int maxFiles)
      throws IOException {
    return open(dir, ticker, maxBytes, maxFiles, DiskWrites.DIRECT);
  }

  /** Like {@link #open(Path, Ticker, long, int)}, writing through {@code writes}. */
  public static FileAuditLog open(
      Path dir, Ticker ticker, long maxBytes, int maxFiles, DiskWrites writes) throws IOException {
    if (maxBytes < 1024) {
      throw new IllegalArgumentException("maxBytes must be at least 1024, was " + maxBytes);
    }
    if (maxFiles < 1) {
      throw new IllegalArgumentException("maxFiles must be at least 1, was " + maxFiles);
    }
    return new FileAuditLog(dir, ticker, maxBytes, maxFiles, writes);
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
  public long append(
      Actor actor,
      String action,
      String service,
      String reason,
      long versionBefore,
      long versionAfter,
      Map<String, Object> details) {
    AuditEvent e =
        new AuditEvent(
            0,
            ticker.currentTimeMillis(),
            actor.name(),
            actor.role(),
            action,
            service,
            reason,
            versionBefore,
            versionAfter,
            details == null ? Map.of() : details);
    try {
      return append(e);
    } catch (IOException ex) {
      throw new UncheckedIOException("cannot write the audit log in " + dir, ex);
    }
  }

  /**
   * Appends {@code event} under the next sequence number (its own {@code seq} is ignored) and
   * forces it to disk. Its time is kept: the state writer re-derives the event of a change from the
   * journal after a lost write, stamped with the time of the change.
   */
  public long append(AuditEvent event) throws IOException {
    return append(event, List.of());
  }

  /** Sends every event appended from now on, once durable, to {@code t} as well. */
  public void tap(EventTap t) {
    tap(t, () -> {});
  }

  /**
   * Runs {@code catchUp} (which may read this log) and then makes {@code t} hear every later event,
   * with no append in between: nothing falls between what {@code catchUp} read and what {@code t}
   * hears.
   */
  public synchronized void tap(EventTap t, Runnable catchUp) {
    catchUp.run();
    this.tap = t == null ? EventTap.NONE : t;
  }

  /**
   * Like {@link #append(AuditEvent)}; {@code switches} (the switch records the event concerns) go
   * to the {@link #tap} with it, not to the log.
   */
  public synchronized long append(AuditEvent event, List<SwitchRecord> switches)
      throws IOException {
    AuditEvent e =
        new AuditEvent(
            seq + 1,
            event.timeMillis(),
            event.actor(),
            event.role(),
            event.action(),
            event.service(),
            event.reason(),
            event.versionBefore(),
            event.versionAfter(),
            event.details() == null ? Map.of() : event.details());
    byte[] line;
    try {
      line = (JSON.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException ex) {
      throw new IllegalArgumentException("audit details are not serialisable: " + ex, ex);
    }
    if (size > 0 && size + line.length > maxBytes) {
      rotate();
    }
    writes.appendForced(dir.resolve(CURRENT), channel, size, line, line.length);
    size += line.length;
    seq = e.seq();
    if (e.details().get(REVISION) instanceof Number n) {
      lastRevision = Math.max(lastRevision, n.longValue());
    }
    try {
      tap.recorded(e, switches);
    } catch (RuntimeException ex) {
      // The event is durable here; whoever listens recovers what it missed from this log.
      System.getLogger(FileAuditLog.class.getName())
          .log(System.Logger.Level.ERROR, "a listener of the audit log failed on event " + seq, ex);
    }
    return seq;
  }

  /**
   * The highest traffic-state revision ({@code details.revision}) among the newest events: the
   * state writer re-derives the audit event of a newer journal record whose write was lost.
   */
  public synchronized long lastRevision() {
    return lastRevision;
  }

  /**
   * The first and last readable events of a file and the newest traffic-state revision among its
   * events, found by parsing lines from either end only as far as needed.
   */
  private record Ends(AuditEvent first, AuditEvent last, long lastRevision) {
    private static final byte[] REVISION_KEY =
        ("\"" + REVISION + "\":").getBytes(StandardCharsets.UTF_8);

    static Ends of(Path file) throws IOException {
      byte[] all;
      try {
        all = Files.readAllBytes(file);
      } catch (NoSuchFileException e) {
        return new Ends(null, null, 0);
      }
      List<int[]> lines = new ArrayList<>();
      int start = 0;
      for (int i = 0; i < all.length; i++) {
        if (all[i] == '\n') {
          if (i > start) {
            lines.add(new int[] {start, i});
          }
          start = i + 1;
        }
      }
      AuditEvent first = null;
      for (int i = 0; i < lines.size() && first == null; i++) {
        first = parse(all, lines.get(i));
      }
      AuditEvent last = null;
      for (int i = lines.size() - 1; i >= 0 && last == null; i--) {
        last = parse(all, lines.get(i));
      }
      long revision = 0;
      for (int i = lines.size() - 1; i >= 0 && revision == 0; i--) {
        int[] l = lines.get(i);
        if (LineIndex.indexOf(all, l[0], l[1], REVISION_KEY) >= 0) {
          AuditEvent e = parse(all, l);
          if (e != null && e.details() != null && e.details().get(REVISION) instanceof Number n) {
            revision = n.longValue();
          }
        }
      }
      return new Ends(first, last, revision);
    }

    private static AuditEvent parse(byte[] all, int[] line) {
      try {
        return JSON.readValue(all, line[0], line[1] - line[0], AuditEvent.class);
      } catch (IOException damaged) {
        return null; // a damaged line is skipped rather than hiding the events around it
      }
    }
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

  /**
   * Events matching {@code q}, newest first, across the current and rotated files. Takes no lock
   * that appends take: files are read through their own handles, newest first; a query naming an
   * actor or a service reads only the lines a per-file {@link LineIndex} lists for it, any other
   * reads lines from the end; the scan stops at the limit.
   */
  public List<AuditEvent> query(AuditQuery q) {
    List<AuditEvent> out = new ArrayList<>();
    int[] skipped = {0};
    try {
      List<Path> files = new ArrayList<>(rotatedFiles());
      files.add(dir.resolve(CURRENT));
      // Indexes of files deleted by rotation are dropped with them.
      indexes.keySet().retainAll(files);
      for (int f = files.size() - 1; f >= 0 && out.size() < q.limit(); f--) {
        Path file = files.get(f);
        try {
          if (q.actor() != null || q.service() != null) {
            readIndexed(index(file), q, out, skipped);
          } else {
            scanBackwards(Files.readAllBytes(file), q, out, skipped);
          }
        } catch (NoSuchFileException e) {
          continue; // rotated or deleted meanwhile
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the audit log in " + dir, e);
    }
    return out;
  }

  private LineIndex index(Path file) throws IOException {
    LineIndex idx = indexes.computeIfAbsent(file, f -> new LineIndex(f, JSON));
    if (!idx.refresh()) {
      // The current file was rotated away and replaced since it was indexed.
      LineIndex fresh = new LineIndex(file, JSON);
      fresh.refresh();
      indexes.put(file, fresh);
      return fresh;
    }
    return idx;
  }

  private static void readIndexed(LineIndex idx, AuditQuery q, List<AuditEvent> out, int[] skipped)
      throws IOException {
    int[] lines = idx.candidates(q.actor(), q.service());
    try (RandomAccessFile in = new RandomAccessFile(idx.file().toFile(), "r")) {
      for (int i = lines.length - 1; i >= 0 && out.size() < q.limit(); i--) {
        try {
          AuditEvent e = JSON.readValue(idx.line(in, lines[i]), AuditEvent.class);
          if (matches(q, e)) {
            if (skipped[0] < q.offset()) {
              skipped[0]++;
            } else {
              out.add(e);
            }
          }
        } catch (JsonProcessingException damaged) {
          // A damaged line is skipped rather than hiding every event after it.
        }
      }
    }
  }

  /** Reads every line of {@code all} from the end: a query naming no actor or service. */
  private static void scanBackwards(byte[] all, AuditQuery q, List<AuditEvent> out, int[] skipped) {
    int end = all.length;
    while (end > 0 && all[end - 1] == '\n') {
      end--;
    }
    while (end > 0 && out.size() < q.limit()) {
      int start = end;
      while (start > 0 && all[start - 1] != '\n') {
        start--;
      }
      try {
        AuditEvent e = JSON.readValue(all, start, end - start, AuditEvent.class);
        if (matches(q, e)) {
          if (skipped[0] < q.offset()) {
            skipped[0]++;
          } else {
            out.add(e);
          }
        }
      } catch (IOException damaged) {
        // A damaged or half-written line is skipped rather than hiding every event after it.
      }
      end = start;
      while (end > 0 && all[end - 1] == '\n') {
        end--;
      }
    }
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
