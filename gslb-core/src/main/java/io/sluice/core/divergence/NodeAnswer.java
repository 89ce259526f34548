package io.sluice.core.divergence;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * What one node answered for one subnet: the rcode and the answer section as a sorted set of typed
 * record data, with the smallest TTL; or why no answer came ({@code error} not null).
 */
public record NodeAnswer(String rcode, List<Rr> records, long ttl, String error) {

  public NodeAnswer {
    records = List.copyOf(records);
  }

  /** One answer record: its type ({@code A}, {@code AAAA}, {@code CNAME}) and its data. */
  public record Rr(String type, String data) implements Comparable<Rr> {
    @Override
    public int compareTo(Rr o) {
      int c = type.compareTo(o.type);
      return c != 0 ? c : data.compareTo(o.data);
    }

    @Override
    public String toString() {
      return type + " " + data;
    }
  }

  /**
   * An answer: record order and duplicates are dropped (they are not a difference), names are
   * compared in lower case.
   */
  public static NodeAnswer answered(String rcode, List<Rr> records, long ttl) {
    TreeSet<Rr> sorted = new TreeSet<>();
    for (Rr r : records) {
      sorted.add(new Rr(r.type().toUpperCase(Locale.ROOT), r.data().toLowerCase(Locale.ROOT)));
    }
    return new NodeAnswer(rcode, new ArrayList<>(sorted), ttl, null);
  }

  /** No answer (timeout, refused connection, malformed reply): {@code why}. */
  public static NodeAnswer failed(String why) {
    return new NodeAnswer("-", List.of(), -1, why);
  }

  /** Whether the node answered at all. */
  public boolean ok() {
    return error == null;
  }

  /** The answer as one line: {@code NOERROR A 192.0.2.1,A 192.0.2.2} or {@code no answer (why)}. */
  public String text() {
    if (!ok()) {
      return "no answer (" + error + ")";
    }
    StringBuilder b = new StringBuilder(rcode);
    for (int i = 0; i < records.size(); i++) {
      b.append(i == 0 ? " " : ",").append(records.get(i));
    }
    return b.toString();
  }
}
