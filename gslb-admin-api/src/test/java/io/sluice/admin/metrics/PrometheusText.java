package io.sluice.admin.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of the Prometheus text exposition format (0.0.4) for tests: every line must be a
 * comment or a sample, label values must be quoted, and samples are keyed as {@code
 * name{label="value",...}} with labels sorted.
 */
final class PrometheusText {
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})? (\\S+)( \\d+)?");
  private static final Pattern LABEL =
      Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");
  private static final Pattern TYPE =
      Pattern.compile("# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram|summary|untyped)");

  private PrometheusText() {}

  static Map<String, Double> parse(String text) {
    Map<String, Double> out = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isEmpty() || line.startsWith("# HELP ")) {
        continue;
      }
      if (line.startsWith("#")) {
        if (!TYPE.matcher(line).matches()) {
          throw new IllegalArgumentException("bad comment line: " + line);
        }
        continue;
      }
      Matcher m = SAMPLE.matcher(line);
      if (!m.matches()) {
        throw new IllegalArgumentException("bad sample line: " + line);
      }
      Map<String, String> labels = new java.util.TreeMap<>();
      if (m.group(3) != null && !m.group(3).isEmpty()) {
        Matcher l = LABEL.matcher(m.group(3));
        int end = 0;
        while (l.find() && l.start() == end) {
          labels.put(l.group(1), l.group(2));
          end = l.end();
        }
        if (end != m.group(3).length()) {
          throw new IllegalArgumentException("bad labels: " + line);
        }
      }
      out.put(key(m.group(1), labels), Double.parseDouble(m.group(4)));
    }
    return out;
  }

  /** The sample {@code name} with {@code labels} (name, value pairs) in {@code m}, or 0. */
  static double value(Map<String, Double> m, String name, String... labels) {
    Map<String, String> l = new java.util.HashMap<>();
    for (int i = 0; i < labels.length; i += 2) {
      l.put(labels[i], labels[i + 1]);
    }
    return m.getOrDefault(key(name, l), 0.0);
  }

  static String key(String name, Map<String, String> labels) {
    StringBuilder sb = new StringBuilder(name).append('{');
    new java.util.TreeMap<>(labels)
        .forEach((k, v) -> sb.append(k).append("=\"").append(v).append("\","));
    return sb.append('}').toString();
  }
}
