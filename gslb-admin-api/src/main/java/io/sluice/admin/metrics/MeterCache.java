package io.sluice.admin.metrics;

import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * Meters keyed by a tuple of label values, looked up through nested maps so that a hit neither
 * allocates nor touches the meter registry: the DNS path records through this per query. A null
 * label value is stored as {@code "unknown"}.
 */
final class MeterCache<M> {
  private static final String UNKNOWN = "unknown";
  private final ConcurrentHashMap<String, Object> root = new ConcurrentHashMap<>();
  private final int depth;
  private final Function<String[], M> factory;

  MeterCache(int depth, Function<String[], M> factory) {
    if (depth < 1 || depth > 4) {
      throw new IllegalArgumentException("depth must be 1..4, was " + depth);
    }
    this.depth = depth;
    this.factory = factory;
  }

  M get(String a) {
    return leaf(root, a, a, null, null, null);
  }

  M get(String a, String b) {
    return leaf(node(root, a), b, a, b, null, null);
  }

  M get(String a, String b, String c) {
    return leaf(node(node(root, a), b), c, a, b, c, null);
  }

  M get(String a, String b, String c, String d) {
    return leaf(node(node(node(root, a), b), c), d, a, b, c, d);
  }

  @SuppressWarnings("unchecked")
  private static ConcurrentHashMap<String, Object> node(
      ConcurrentHashMap<String, Object> parent, String key) {
    String k = key == null ? UNKNOWN : key;
    Object child = parent.get(k);
    if (child == null) {
      child = parent.computeIfAbsent(k, x -> new ConcurrentHashMap<String, Object>());
    }
    return (ConcurrentHashMap<String, Object>) child;
  }

  @SuppressWarnings("unchecked")
  private M leaf(
      ConcurrentHashMap<String, Object> parent,
      String key,
      String a,
      String b,
      String c,
      String d) {
    String k = key == null ? UNKNOWN : key;
    Object meter = parent.get(k);
    if (meter == null) {
      meter = parent.computeIfAbsent(k, x -> factory.apply(labels(a, b, c, d)));
    }
    return (M) meter;
  }

  private String[] labels(String a, String b, String c, String d) {
    String[] all = {a, b, c, d};
    String[] out = new String[depth];
    for (int i = 0; i < depth; i++) {
      out[i] = all[i] == null ? UNKNOWN : all[i];
    }
    return out;
  }
}
