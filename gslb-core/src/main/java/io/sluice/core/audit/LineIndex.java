package io.sluice.core.audit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Where each actor's and each service's events are in one audit file. Audit files are append-only,
 * so the bytes already indexed never change: the index of a rotated file is built once, and that of
 * the current file is extended by each query with the lines appended since. A query for one actor
 * then reads only that actor's lines instead of the whole file. Only readers use it; appends never
 * touch it.
 */
final class LineIndex {
  private static final byte[] ACTOR = "\"actor\":\"".getBytes(StandardCharsets.UTF_8);
  private static final byte[] SERVICE = "\"service\":\"".getBytes(StandardCharsets.UTF_8);

  private final Path file;
  private final ObjectMapper json;
  private Object fileKey;
  // Line i spans [starts[i], starts[i + 1]) (the last one up to covered).
  private int[] starts = new int[1024];
  private int lines;
  private long covered;
  private final Map<String, IntList> byActor = new HashMap<>();
  private final Map<String, IntList> byService = new HashMap<>();

  LineIndex(Path file, ObjectMapper json) {
    this.file = file;
    this.json = json;
  }

  /**
   * Indexes the whole lines appended since the last call. Returns false when the file is no longer
   * the one indexed (rotated away and replaced, or cut on open): the caller starts a new index.
   */
  synchronized boolean refresh() throws IOException {
    Object key = Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    if (fileKey != null && !fileKey.equals(key)) {
      return false;
    }
    fileKey = key;
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      long length = in.length();
      if (length < covered) {
        return false;
      }
      if (length - covered > Integer.MAX_VALUE - 16) {
        throw new IOException("audit file " + file + " is too large to index");
      }
      byte[] tail = new byte[(int) (length - covered)];
      in.seek(covered);
      in.readFully(tail);
      int start = 0;
      for (int end = 0; end < tail.length; end++) {
        if (tail[end] != '\n') {
          continue;
        }
        if (end > start) {
          add((int) covered + start, tail, start, end);
        }
        start = end + 1;
      }
      // A line still being written (no newline yet) waits for the next refresh.
      covered += start;
    }
    return true;
  }

  private void add(int offset, byte[] b, int from, int to) {
    if (lines == starts.length) {
      starts = Arrays.copyOf(starts, lines * 2);
    }
    starts[lines] = offset;
    String actor = field(b, from, to, ACTOR, "actor", json);
    String service = field(b, from, to, SERVICE, "service", json);
    if (actor != null) {
      byActor.computeIfAbsent(actor, k -> new IntList()).add(lines);
    }
    if (service != null) {
      byService.computeIfAbsent(service, k -> new IntList()).add(lines);
    }
    lines++;
  }

  /** A string field's value: read from the raw bytes, or parsed when it holds escapes. */
  private static String field(
      byte[] all, int from, int to, byte[] key, String name, ObjectMapper json) {
    int at = indexOf(all, from, to, key);
    if (at < 0) {
      return null;
    }
    int v = at + key.length;
    for (int i = v; i < to; i++) {
      if (all[i] == '\\') {
        try {
          JsonNode n = json.readTree(all, from, to - from).get(name);
          return n == null || n.isNull() ? null : n.asText();
        } catch (IOException damaged) {
          return null;
        }
      }
      if (all[i] == '"') {
        return new String(all, v, i - v, StandardCharsets.UTF_8);
      }
    }
    return null;
  }

  static int indexOf(byte[] all, int from, int to, byte[] n) {
    outer:
    for (int i = from; i + n.length <= to; i++) {
      for (int k = 0; k < n.length; k++) {
        if (all[i + k] != n[k]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }

  /**
   * Line numbers, ascending, of the events that can match an actor and a service (null: any); null
   * when neither is asked, so the caller scans.
   */
  synchronized int[] candidates(String actor, String service) {
    if (actor == null && service == null) {
      return null;
    }
    int[] a = actor == null ? null : lines(byActor.get(actor));
    int[] s = service == null ? null : lines(byService.get(service));
    if (a == null) {
      return s;
    }
    if (s == null) {
      return a;
    }
    return intersect(a, s);
  }

  private static int[] lines(IntList l) {
    return l == null ? new int[0] : l.toArray();
  }

  private static int[] intersect(int[] a, int[] b) {
    int[] out = new int[Math.min(a.length, b.length)];
    int n = 0;
    for (int i = 0, j = 0; i < a.length && j < b.length; ) {
      if (a[i] == b[j]) {
        out[n++] = a[i];
        i++;
        j++;
      } else if (a[i] < b[j]) {
        i++;
      } else {
        j++;
      }
    }
    return Arrays.copyOf(out, n);
  }

  /**
   * Reads line {@code i} (a number from {@link #candidates}) through {@code in}, a handle on it.
   */
  synchronized byte[] line(RandomAccessFile in, int i) throws IOException {
    int from = starts[i];
    int to = i + 1 < lines ? starts[i + 1] : (int) covered;
    byte[] b = new byte[to - from];
    in.seek(from);
    in.readFully(b);
    return b;
  }

  Path file() {
    return file;
  }

  /** A growable list of ints, so an index of half a million lines boxes nothing. */
  private static final class IntList {
    private int[] values = new int[16];
    private int size;

    void add(int v) {
      if (size == values.length) {
        values = Arrays.copyOf(values, size * 2);
      }
      values[size++] = v;
    }

    int[] toArray() {
      return Arrays.copyOf(values, size);
    }
  }
}
