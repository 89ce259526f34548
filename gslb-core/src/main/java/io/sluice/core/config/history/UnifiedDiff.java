package io.sluice.core.config.history;

import java.util.ArrayList;
import java.util.List;

/** A unified diff ({@code diff -u} style) of two texts, line by line. */
public final class UnifiedDiff {
  private static final int CONTEXT = 3;
  // Past this many cells the changed middle is shown as one replacement instead of aligned.
  private static final long MAX_CELLS = 4_000_000;

  private UnifiedDiff() {}

  private enum Op {
    SAME,
    DELETE,
    INSERT
  }

  private record Edit(Op op, String line) {}

  /** The diff turning {@code a} (labelled {@code aName}) into {@code b}; empty when equal. */
  public static String of(String aName, String a, String bName, String b) {
    List<String> x = lines(a);
    List<String> y = lines(b);
    List<Edit> edits = edits(x, y);
    if (edits.stream().allMatch(e -> e.op() == Op.SAME)) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    out.append("--- ").append(aName).append('\n').append("+++ ").append(bName).append('\n');
    int i = 0;
    int ai = 0;
    int bi = 0;
    while (i < edits.size()) {
      // Find the next change and the hunk around it.
      int first = i;
      while (first < edits.size() && edits.get(first).op() == Op.SAME) {
        first++;
      }
      if (first == edits.size()) {
        break;
      }
      int start = Math.max(i, first - CONTEXT);
      for (int k = i; k < start; k++) {
        ai++;
        bi++;
      }
      int end = first;
      int lastChange = first;
      while (end < edits.size()) {
        if (edits.get(end).op() != Op.SAME) {
          lastChange = end;
        } else if (end - lastChange > 2 * CONTEXT) {
          break;
        }
        end++;
      }
      end = Math.min(edits.size(), lastChange + CONTEXT + 1);
      int aCount = 0;
      int bCount = 0;
      StringBuilder body = new StringBuilder();
      for (int k = start; k < end; k++) {
        Edit e = edits.get(k);
        switch (e.op()) {
          case SAME -> {
            body.append(' ').append(e.line()).append('\n');
            aCount++;
            bCount++;
          }
          case DELETE -> {
            body.append('-').append(e.line()).append('\n');
            aCount++;
          }
          case INSERT -> {
            body.append('+').append(e.line()).append('\n');
            bCount++;
          }
        }
      }
      out.append("@@ -")
          .append(range(ai, aCount))
          .append(" +")
          .append(range(bi, bCount))
          .append(" @@\n")
          .append(body);
      ai += aCount;
      bi += bCount;
      i = end;
    }
    return out.toString();
  }

  private static String range(int before, int count) {
    return (count == 0 ? before : before + 1) + "," + count;
  }

  private static List<String> lines(String s) {
    List<String> out = new ArrayList<>(List.of(s.split("\n", -1)));
    if (!out.isEmpty() && out.get(out.size() - 1).isEmpty()) {
      out.remove(out.size() - 1);
    }
    return out;
  }

  private static List<Edit> edits(List<String> x, List<String> y) {
    int pre = 0;
    while (pre < x.size() && pre < y.size() && x.get(pre).equals(y.get(pre))) {
      pre++;
    }
    int suf = 0;
    while (suf < x.size() - pre
        && suf < y.size() - pre
        && x.get(x.size() - 1 - suf).equals(y.get(y.size() - 1 - suf))) {
      suf++;
    }
    List<Edit> out = new ArrayList<>();
    for (int k = 0; k < pre; k++) {
      out.add(new Edit(Op.SAME, x.get(k)));
    }
    List<String> mx = x.subList(pre, x.size() - suf);
    List<String> my = y.subList(pre, y.size() - suf);
    if ((long) mx.size() * my.size() > MAX_CELLS) {
      mx.forEach(l -> out.add(new Edit(Op.DELETE, l)));
      my.forEach(l -> out.add(new Edit(Op.INSERT, l)));
    } else {
      out.addAll(lcs(mx, my));
    }
    for (int k = x.size() - suf; k < x.size(); k++) {
      out.add(new Edit(Op.SAME, x.get(k)));
    }
    return out;
  }

  private static List<Edit> lcs(List<String> x, List<String> y) {
    int n = x.size();
    int m = y.size();
    int[][] len = new int[n + 1][m + 1];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        len[i][j] =
            x.get(i).equals(y.get(j))
                ? len[i + 1][j + 1] + 1
                : Math.max(len[i + 1][j], len[i][j + 1]);
      }
    }
    List<Edit> out = new ArrayList<>();
    int i = 0;
    int j = 0;
    while (i < n && j < m) {
      if (x.get(i).equals(y.get(j))) {
        out.add(new Edit(Op.SAME, x.get(i)));
        i++;
        j++;
      } else if (len[i + 1][j] >= len[i][j + 1]) {
        out.add(new Edit(Op.DELETE, x.get(i++)));
      } else {
        out.add(new Edit(Op.INSERT, y.get(j++)));
      }
    }
    while (i < n) {
      out.add(new Edit(Op.DELETE, x.get(i++)));
    }
    while (j < m) {
      out.add(new Edit(Op.INSERT, y.get(j++)));
    }
    return out;
  }
}
