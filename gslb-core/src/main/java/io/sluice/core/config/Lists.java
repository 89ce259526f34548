package io.sluice.core.config;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Immutable copies that keep declaration order and treat an absent list or map as empty. */
public final class Lists {
  private Lists() {}

  /** An immutable copy of {@code list}; empty when null. */
  public static <T> List<T> copy(List<T> list) {
    return list == null ? List.of() : List.copyOf(list);
  }

  /** An immutable copy of {@code map} that keeps its iteration order; empty when null. */
  public static <K, V> Map<K, V> copyOrdered(Map<K, V> map) {
    return map == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(map));
  }
}
