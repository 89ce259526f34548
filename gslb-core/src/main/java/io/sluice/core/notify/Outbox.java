package io.sluice.core.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.config.NotificationsConfig.WebhookConfig;
import io.sluice.core.store.DiskWrites;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The durable outbox of webhook events in the state directory: {@code webhooks/outbox.jsonl}, one
 * event per line in audit order, each forced to disk before the audit append that produced it
 * returns (so before the change is published and acknowledged), and {@code webhooks/cursors.json},
 * per webhook and lane the sequence number of the last event delivered. An event stays until every
 * webhook that wants it has it; past {@code limit} events the oldest is dropped and counted.
 *
 * <p>A damaged line is skipped; an unreadable file is moved aside; a write that fails (a full disk)
 * keeps the event in memory and marks the outbox unhealthy; in every case the server keeps serving,
 * and events whose write was lost are read again from the audit log at the next start.
 */
final class Outbox {
  private static final System.Logger LOG = System.getLogger(Outbox.class.getName());
  static final String FILE = "outbox.jsonl";
  static final String CURSORS = "cursors.json";

  /** Per webhook: events up to {@code since} predate it; per lane the last delivered. */
  record Cursor(long since, Map<String, Long> lanes) {
    Cursor {
      lanes = new HashMap<>(lanes == null ? Map.of() : lanes);
    }
  }

  /** What the cursor file holds; {@code source} is this node's id in event ids (single node). */
  record Cursors(long taken, String source, Map<String, Cursor> sinks) {}

  private final Path dir;
  private final DiskWrites writes;
  private final ObjectMapper json;
  private final int limit;
  private final TreeMap<Long, WebhookEvent> events = new TreeMap<>();
  private final Map<String, Cursor> cursors = new LinkedHashMap<>();
  private Map<String, WebhookConfig> sinks = Map.of();
  // Per webhook and lane, the revision the cluster delivered up to (empty on a single node).
  private Map<String, Map<String, Long>> shared = Map.of();
  private RandomAccessFile out;
  private long size;
  private int lines;
  // The highest audit sequence number this outbox has heard (kept or not).
  private long taken;
  // Events kept in memory only (their write failed): the saved watermark stays below them, so
  // that they are read again from the audit log after a restart.
  private final java.util.TreeSet<Long> unwritten = new java.util.TreeSet<>();
  // Events after this one may be missing from the outbox: the watermark the cursor file saved.
  private long recoverAfter;
  // The cursor file was missing or unreadable beside an existing outbox: every webhook is owed
  // what the outbox holds (sent again if need be) rather than nothing.
  private boolean cursorsLost;
  private long savedTaken;
  private final Map<String, Long> dropped = new HashMap<>();
  private volatile String problem;
  // Raised by every change of what is owed (an event kept, a cursor moved, webhooks changed).
  private volatile long generation;
  // A single node's part of its event ids, made once and kept in the cursor file.
  private String source;

  private Outbox(Path dir, DiskWrites writes, ObjectMapper json, int limit) {
    this.dir = dir;
    this.writes = writes;
    this.json = json;
    this.limit = limit;
  }

  /**
   * Opens the outbox in {@code dir}. A new outbox starts at {@code auditSeq} (the audit log's last
   * event): what happened before it existed is not news.
   */
  static Outbox open(Path dir, DiskWrites writes, ObjectMapper json, int limit, long auditSeq) {
    Outbox o = new Outbox(dir, writes, json, limit);
    boolean fresh = !Files.exists(dir.resolve(FILE)) && !Files.exists(dir.resolve(CURSORS));
    try {
      Files.createDirectories(dir);
      o.readCursors();
      o.readEvents();
      o.out = new RandomAccessFile(dir.resolve(FILE).toFile(), "rw");
      o.size = o.out.length();
    } catch (IOException e) {
      o.unhealthy("the webhook outbox in " + dir + " cannot be opened", e);
    }
    if (fresh) {
      o.taken = auditSeq;
    } else if (!Files.exists(dir.resolve(CURSORS))) {
      o.cursorsLost = true;
    }
    o.recoverAfter = o.cursorsLost ? o.taken : Math.min(o.savedTaken, o.taken);
    if (fresh) {
      o.recoverAfter = auditSeq;
    }
    return o;
  }

  private void readCursors() throws IOException {
    Path file = dir.resolve(CURSORS);
    try {
      Cursors c = json.readValue(Files.readAllBytes(file), Cursors.class);
      taken = c.taken();
      savedTaken = c.taken();
      source = c.source();
      if (c.sinks() != null) {
        cursors.putAll(c.sinks());
      }
    } catch (NoSuchFileException e) {
      // a new outbox
    } catch (IOException e) {
      // Delivered events may be sent again (receivers dedupe by id): better than losing any.
      moveAside(file, e);
    }
  }

  private void readEvents() throws IOException {
    Path file = dir.resolve(FILE);
    byte[] all;
    try {
      all = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return;
    } catch (IOException e) {
      moveAside(file, e);
      return;
    }
    int start = 0;
    int damaged = 0;
    int end = 0;
    for (int i = 0; i < all.length; i++) {
      if (all[i] == '\n') {
        try {
          WebhookEvent e = json.readValue(all, start, i - start, WebhookEvent.class);
          events.put(e.seq(), e);
          taken = Math.max(taken, e.seq());
        } catch (IOException x) {
          damaged++;
        }
        lines++;
        start = i + 1;
        end = i + 1;
      }
    }
    if (damaged > 0) {
      LOG.log(
          System.Logger.Level.ERROR,
          "{0} damaged line(s) in {1} skipped; the events around them are kept",
          damaged,
          file);
    }
    if (end < all.length) {
      // A torn last line: the audit log still has its event, read again below the watermark.
      try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
        f.setLength(end);
        f.getFD().sync();
      }
    }
  }

  private void moveAside(Path file, IOException why) {
    Path aside = file.resolveSibling(file.getFileName() + ".damaged-" + System.currentTimeMillis());
    LOG.log(
        System.Logger.Level.ERROR,
        "the webhook outbox file "
            + file
            + " cannot be read ("
            + why.getMessage()
            + "); moved to "
            + aside
            + ", starting without it (events may be sent twice, under the same id)");
    try {
      Files.move(file, aside, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      unhealthy("the damaged webhook outbox file " + file + " cannot be moved aside", e);
    }
  }

  /**
   * This node's random id, the first part of the ids of its events when it is no cluster's node:
   * two single nodes sending to one receiver never share an id. Made on first use and kept.
   */
  synchronized String source() {
    if (source == null) {
      byte[] b = new byte[6];
      new java.security.SecureRandom().nextBytes(b);
      source = "node-" + java.util.HexFormat.of().formatHex(b);
      saveCursors();
    }
    return source;
  }

  /** The webhooks now configured; a new one starts after the newest event heard. */
  synchronized void sinks(Map<String, WebhookConfig> configured) {
    this.sinks = Map.copyOf(configured);
    boolean added = false;
    for (String name : configured.keySet()) {
      if (!cursors.containsKey(name)) {
        cursors.put(name, new Cursor(cursorsLost ? 0 : taken, Map.of()));
        added = true;
      }
    }
    cursors.keySet().retainAll(configured.keySet());
    cursorsLost = false;
    generation++;
    if (added) {
      saveCursors();
    }
    compact();
  }

  /** The cluster's cursors (shared-state events up to them are delivered). */
  synchronized void shared(Map<String, Map<String, Long>> cursorsOfCluster) {
    if (!cursorsOfCluster.equals(shared)) {
      this.shared = cursorsOfCluster;
      generation++;
      compact(); // what the leader delivered is no longer owed here
    }
  }

  /**
   * The audit sequence number after which events may be missing from the outbox (their write was
   * lost to a crash or a full disk): read again from the audit log at start.
   */
  synchronized long recoverAfter() {
    return recoverAfter;
  }

  /**
   * Keeps {@code e} when a webhook wants it (forced to disk before returning); {@code mine}:
   * whether this node delivers it at all. Returns the webhooks that lost an event to the bound.
   */
  synchronized List<String> add(WebhookEvent e, boolean mine) {
    if (events.containsKey(e.seq())) {
      return List.of(); // read again from the audit log, but the outbox has it
    }
    taken = Math.max(taken, e.seq());
    if (!mine || !wanted(e)) {
      return List.of();
    }
    events.put(e.seq(), e);
    generation++;
    write(e);
    List<String> lost = new ArrayList<>();
    while (events.size() > limit) {
      WebhookEvent oldest = events.pollFirstEntry().getValue();
      for (String sink : sinks.keySet()) {
        if (owed(sink, oldest)) {
          lost.add(sink);
          dropped.merge(sink, 1L, Long::sum);
        }
      }
      LOG.log(
          System.Logger.Level.ERROR,
          "the webhook outbox holds its limit of {0} events: event {1} ({2}) is dropped undelivered",
          limit,
          oldest.id(),
          oldest.type());
    }
    return lost;
  }

  private void write(WebhookEvent e) {
    if (out == null) {
      return;
    }
    try {
      byte[] line = (json.writeValueAsString(e) + "\n").getBytes(StandardCharsets.UTF_8);
      writes.appendForced(dir.resolve(FILE), out, size, line, line.length);
      size += line.length;
      lines++;
      healthy();
    } catch (IOException x) {
      unwritten.add(e.seq());
      unhealthy(
          "webhook event "
              + e.id()
              + " cannot be written to the outbox in "
              + dir
              + "; it is kept in memory, and read again from the audit log after a restart",
          x);
    }
  }

  private boolean wanted(WebhookEvent e) {
    for (String sink : sinks.keySet()) {
      if (owed(sink, e)) {
        return true;
      }
    }
    return false;
  }

  /** Whether {@code sink} still has to receive {@code e}. */
  private boolean owed(String sink, WebhookEvent e) {
    WebhookConfig w = sinks.get(sink);
    Cursor c = cursors.get(sink);
    if (w == null || c == null || e.seq() <= c.since() || !w.wants(e.type(), e.service())) {
      return false;
    }
    if (e.seq() <= c.lanes().getOrDefault(e.lane(), 0L)) {
      return false;
    }
    return !e.cluster()
        || e.revision() > shared.getOrDefault(sink, Map.of()).getOrDefault(e.lane(), 0L);
  }

  /** The next event owed to {@code sink} in each lane, oldest lane head first. */
  synchronized List<WebhookEvent> heads(String sink) {
    Map<String, WebhookEvent> heads = new LinkedHashMap<>();
    for (WebhookEvent e : events.values()) {
      if (!heads.containsKey(e.lane()) && owed(sink, e)) {
        heads.put(e.lane(), e);
      }
    }
    return new ArrayList<>(heads.values());
  }

  /** How many events {@code sink} is owed, and the time of the oldest (0: none). */
  synchronized long[] backlog(String sink) {
    long count = 0;
    long oldest = 0;
    for (WebhookEvent e : events.values()) {
      if (owed(sink, e)) {
        count++;
        oldest = oldest == 0 ? e.timeMillis() : Math.min(oldest, e.timeMillis());
      }
    }
    return new long[] {count, oldest};
  }

  /** Events of {@code sink} dropped at the bound since start. */
  synchronized long dropped(String sink) {
    return dropped.getOrDefault(sink, 0L);
  }

  /** Records that {@code sink} received {@code e} (and every earlier event of its lane). */
  synchronized void delivered(String sink, WebhookEvent e) {
    Cursor c = cursors.get(sink);
    if (c == null) {
      return;
    }
    c.lanes().merge(e.lane(), e.seq(), Math::max);
    generation++;
    saveCursors();
    compact();
  }

  private void saveCursors() {
    try {
      long saved = unwritten.isEmpty() ? taken : Math.min(taken, unwritten.first() - 1);
      byte[] b = json.writeValueAsBytes(new Cursors(saved, source, cursors));
      writes.replace(dir.resolve(CURSORS), b, b.length);
    } catch (IOException x) {
      unhealthy(
          "the webhook delivery cursors cannot be written in "
              + dir
              + "; delivered events may be sent again after a restart",
          x);
    }
  }

  /**
   * Forgets events no webhook is owed; rewrites the file once it holds mostly such events, so its
   * size follows what is pending, not what was ever sent.
   */
  private void compact() {
    for (Iterator<WebhookEvent> it = events.values().iterator(); it.hasNext(); ) {
      WebhookEvent e = it.next();
      if (!wanted(e)) {
        it.remove();
        unwritten.remove(e.seq());
      }
    }
    if (out == null || lines < 64 || lines < 2 * events.size()) {
      return;
    }
    try {
      StringBuilder sb = new StringBuilder();
      for (WebhookEvent e : events.values()) {
        sb.append(json.writeValueAsString(e)).append('\n');
      }
      byte[] b = sb.toString().getBytes(StandardCharsets.UTF_8);
      out.close();
      writes.replace(dir.resolve(FILE), b, b.length);
      out = new RandomAccessFile(dir.resolve(FILE).toFile(), "rw");
      size = b.length;
      lines = events.size();
      unwritten.clear();
      saveCursors();
    } catch (IOException x) {
      unhealthy("the webhook outbox in " + dir + " cannot be compacted", x);
      try {
        out = new RandomAccessFile(dir.resolve(FILE).toFile(), "rw");
        size = out.length();
      } catch (IOException again) {
        out = null;
      }
    }
  }

  /** A number that changes whenever what is owed to the webhooks may have changed. */
  long generation() {
    return generation;
  }

  /** Why the outbox is unhealthy, or null. */
  String problem() {
    return problem;
  }

  private void unhealthy(String why, Exception e) {
    if (problem == null) {
      LOG.log(System.Logger.Level.ERROR, why, e);
    } else {
      LOG.log(System.Logger.Level.ERROR, why + ": " + e.getMessage());
    }
    problem = why;
  }

  private void healthy() {
    if (problem != null) {
      LOG.log(System.Logger.Level.INFO, "the webhook outbox is writable again");
      problem = null;
    }
  }

  synchronized void close() {
    saveCursors();
    try {
      if (out != null) {
        out.close();
      }
    } catch (IOException e) {
      // nothing more to write
    }
  }
}
