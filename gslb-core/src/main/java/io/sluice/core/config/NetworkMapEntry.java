package io.sluice.core.config;

/** An operator's explicit mapping of a network (CIDR) to a region; it beats the GeoIP database. */
public record NetworkMapEntry(String cidr, String region) {

  void validate(String path, SluiceConfig root, Problems p) {
    if (p.required(Problems.child(path, "cidr"), cidr)) {
      String why = Cidr.problem(cidr);
      if (why != null) {
        p.add(Problems.child(path, "cidr"), why);
      }
    }
    if (p.required(Problems.child(path, "region"), region) && !root.regions().containsKey(region)) {
      p.add(Problems.child(path, "region"), "unknown region '" + region + "'");
    }
  }
}
