package io.sluice.core.config;

/**
 * One address (A or AAAA) or one CNAME target inside a pool. {@code name} identifies it in status
 * and audit; it defaults to the address or target. {@code health} overrides the pool's checks.
 */
public record EndpointConfig(
    String name, String address, String cname, Integer weight, HealthConfig health) {

  public EndpointConfig {
    weight = weight == null ? 1 : weight;
    cname = cname == null ? null : DomainNames.canonical(cname);
  }

  /** The stable identifier of this endpoint inside its pool. */
  public String id() {
    if (name != null) {
      return name;
    }
    return address != null ? address : cname;
  }

  /** Address bytes (4 or 16), or null for a CNAME endpoint. */
  public byte[] addressBytes() {
    return address == null ? null : Addresses.parse(address);
  }

  void validate(String path, Problems p) {
    if ((address == null) == (cname == null)) {
      p.add(path, "exactly one of 'address' or 'cname' is required");
    }
    if (address != null && !Addresses.isLiteral(address)) {
      p.add(Problems.child(path, "address"), "must be an IP address, was '" + address + "'");
    }
    if (cname != null) {
      String why = DomainNames.problem(cname);
      if (why != null) {
        p.add(Problems.child(path, "cname"), why);
      }
    }
    p.range(Problems.child(path, "weight"), weight, 0, 65535);
    if (health != null) {
      health.validate(Problems.child(path, "health"), p);
    }
  }
}
