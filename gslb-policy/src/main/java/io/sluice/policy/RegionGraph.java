package io.sluice.policy;

import io.sluice.core.config.GeoPoint;
import io.sluice.core.config.RegionConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The regions of a configuration by index, each with the order in which other regions are tried
 * when its own pools cannot serve: the configured proximity list first, then the remaining regions
 * by great-circle distance (when both have a location), then the rest in declaration order.
 */
public final class RegionGraph {
  private final List<String> names;
  private final int[][] order;

  private RegionGraph(List<String> names, int[][] order) {
    this.names = names;
    this.order = order;
  }

  /** Builds the graph of {@code regions} (in declaration order). */
  public static RegionGraph of(Map<String, RegionConfig> regions) {
    List<String> names = List.copyOf(regions.keySet());
    int[][] order = new int[names.size() + 1][];
    for (int i = 0; i < names.size(); i++) {
      RegionConfig self = regions.get(names.get(i));
      Set<String> seq = new LinkedHashSet<>();
      seq.add(names.get(i));
      seq.addAll(self.proximity());
      List<String> rest = new ArrayList<>(names);
      rest.removeAll(seq);
      GeoPoint here = self.location();
      List<String> located = new ArrayList<>();
      for (String r : rest) {
        if (here != null && regions.get(r).location() != null) {
          located.add(r);
        }
      }
      located.sort(Comparator.comparingDouble(r -> here.distanceKm(regions.get(r).location())));
      seq.addAll(located);
      seq.addAll(rest);
      order[i] = seq.stream().mapToInt(names::indexOf).toArray();
    }
    // "No region": every region in declaration order.
    order[names.size()] = new int[0];
    return new RegionGraph(names, order);
  }

  /** Number of regions; also the index meaning "no region". */
  public int size() {
    return names.size();
  }

  /** Region indexes to try for clients of {@code region}, its own first; empty for no region. */
  public int[] order(int region) {
    return order[region];
  }

  /** The name of region {@code index}, or {@code "none"}. */
  public String name(int index) {
    return index < names.size() ? names.get(index) : "none";
  }

  /** Index of region {@code name}, or -1. */
  public int indexOf(String name) {
    return names.indexOf(name);
  }

  /** Region names in index order. */
  public List<String> names() {
    return names;
  }
}
