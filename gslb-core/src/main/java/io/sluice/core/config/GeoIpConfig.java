package io.sluice.core.config;

import java.nio.file.Files;
import java.util.List;

/** A MaxMind GeoIP2/GeoLite2 database and the rules that map its locations to regions. */
public record GeoIpConfig(String database, List<GeoIpRule> rules) {

  public GeoIpConfig {
    rules = Lists.copy(rules);
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (p.required(Problems.child(path, "database"), database)
        && !Files.isReadable(root.resolve(database))) {
      p.add(
          Problems.child(path, "database"),
          "cannot read '" + database + "' (resolved to " + root.resolve(database) + ")");
    }
    for (int i = 0; i < rules.size(); i++) {
      rules.get(i).validate(Problems.index(Problems.child(path, "rules"), i), root, p);
    }
  }
}
