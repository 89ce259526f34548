package io.sluice.it;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The samples of a Prometheus text-format (0.0.4) scrape: each series (name and sorted labels) with
 * its value. Refuses lines it cannot read, so a malformed scrape fails the test that parses it.
 */
final class PrometheusSamples {
  private final Map<String, Double> values;

  private PrometheusSamples(Map<String, Double> values) {
    this.values = values;
  }

  static PrometheusSamples parse(String text) {
    Map<String, Double> values = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space;
      String name;
      Map<String, String> labels = new TreeMap<>();
      if (brace >= 0 && brace < line.indexOf(' ')) {
        name = line.substring(0, brace);
        int i = brace + 1;
        while (line.charAt(i) != '}') {
          int eq = line.indexOf('=', i);
          String key = line.substring(i, eq);
          if (line.charAt(eq + 1) != '"') {
            throw new IllegalArgumentException("label value not quoted: " + line);
          }
          StringBuilder v = new StringBuilder();
          int j = eq + 2;
          for (; line.charAt(j) != '"'; j++) {
            char c = line.charAt(j);
            if (c == '\\') {
              char n = line.charAt(++j);
              v.append(n == 'n' ? '\n' : n);
            } else {
              v.append(c);
            }
          }
          labels.put(key, v.toString());
          i = j + 1;
          if (line.charAt(i) == ',') {
            i++;
          }
        }
        space = i + 1;
      } else {
        space = line.indexOf(' ');
        name = line.substring(0, space);
      }
      String[] rest = line.substring(space).trim().split(" ");
      String key = key(name, labels);
      if (values.put(key, value(rest[0])) != null) {
        throw new IllegalArgumentException("series twice in one scrape: " + key);
      }
    }
    return new PrometheusSamples(values);
  }

  private static double value(String v) {
    return switch (v) {
      case "+Inf" -> Double.POSITIVE_INFINITY;
      case "-Inf" -> Double.NEGATIVE_INFINITY;
      case "NaN" -> Double.NaN;
      default -> Double.parseDouble(v);
    };
  }

  /** The series key for {@code name} and {@code labels}, as {@code name{a="1",b="2"}}. */
  static String key(String name, Map<String, String> labels) {
    StringBuilder b = new StringBuilder(name).append('{');
    new TreeMap<>(labels).forEach((k, v) -> b.append(k).append("=\"").append(v).append("\","));
    return b.append('}').toString();
  }

  /** The value of one series; 0 when absent (a counter not incremented yet is not exported). */
  double value(String name, Map<String, String> labels) {
    return values.getOrDefault(key(name, labels), 0.0);
  }

  /** The sample names of the scrape ({@code _total}, {@code _bucket}, ... included). */
  Set<String> names() {
    Set<String> out = new TreeSet<>();
    values.keySet().forEach(k -> out.add(k.substring(0, k.indexOf('{'))));
    return out;
  }

  /** Every series of metric {@code name}, by key. */
  Map<String, Double> series(String name) {
    Map<String, Double> out = new TreeMap<>();
    values.forEach(
        (k, v) -> {
          if (k.startsWith(name + "{")) {
            out.put(k, v);
          }
        });
    return out;
  }
}
