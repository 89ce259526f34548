package io.sluice.core.config;

import java.util.List;

/**
 * A named area of users and pools. {@code proximity} lists the regions to try next, nearest first;
 * without it, distance from {@code location} orders them.
 */
public record RegionConfig(GeoPoint location, List<String> proximity) {

  public RegionConfig {
    proximity = Lists.copy(proximity);
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (location != null) {
      location.validate(Problems.child(path, "location"), p);
    }
    for (int i = 0; i < proximity.size(); i++) {
      if (!root.regions().containsKey(proximity.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "proximity"), i),
            "unknown region '" + proximity.get(i) + "'");
      }
    }
  }
}
