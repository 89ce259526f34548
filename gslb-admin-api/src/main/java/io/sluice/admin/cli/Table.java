package io.sluice.admin.cli;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** A plain text table with left-aligned columns sized to their widest cell. */
final class Table {
  private final List<String> header;
  private final List<List<Cell>> rows = new ArrayList<>();

  /** One cell: its text, and the ANSI style to wrap it in when colour is on (or null). */
  record Cell(String text, String style) {}

  Table(String... header) {
    this.header = List.of(header);
  }

  Table row(Object... cells) {
    List<Cell> r = new ArrayList<>();
    for (Object c : cells) {
      r.add(c instanceof Cell cell ? cell : new Cell(c == null ? "-" : String.valueOf(c), null));
    }
    rows.add(r);
    return this;
  }

  boolean isEmpty() {
    return rows.isEmpty();
  }

  void print(PrintStream out, boolean colour) {
    int[] width = new int[header.size()];
    for (int i = 0; i < header.size(); i++) {
      width[i] = header.get(i).length();
    }
    for (List<Cell> r : rows) {
      for (int i = 0; i < r.size() && i < width.length; i++) {
        width[i] = Math.max(width[i], r.get(i).text().length());
      }
    }
    StringBuilder h = new StringBuilder();
    for (int i = 0; i < header.size(); i++) {
      pad(h, header.get(i), width[i], i == header.size() - 1);
    }
    out.println(
        colour
            ? Style.BOLD + h.toString().stripTrailing() + Style.RESET
            : h.toString().stripTrailing());
    for (List<Cell> r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < r.size() && i < width.length; i++) {
        Cell c = r.get(i);
        int start = line.length();
        pad(line, c.text(), width[i], i == r.size() - 1);
        if (colour && c.style() != null) {
          line.insert(start + c.text().length(), Style.RESET).insert(start, c.style());
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }

  private static void pad(StringBuilder sb, String text, int width, boolean last) {
    sb.append(text);
    if (!last) {
      sb.append(" ".repeat(width - text.length() + 2));
    }
  }
}
