package io.sluice.core.config;

/** The zone's SOA record; negative answers use {@code minimum} as their TTL (RFC 2308). */
public record SoaConfig(
    String mname,
    String rname,
    Long serial,
    Long refresh,
    Long retry,
    Long expire,
    Long minimum,
    Long ttl) {

  public SoaConfig {
    serial = serial == null ? 1L : serial;
    refresh = refresh == null ? 7200L : refresh;
    retry = retry == null ? 1800L : retry;
    expire = expire == null ? 1209600L : expire;
    minimum = minimum == null ? 300L : minimum;
  }

  void validate(String path, Problems p) {
    if (p.required(Problems.child(path, "mname"), mname)) {
      String why = DomainNames.problem(mname);
      if (why != null) {
        p.add(Problems.child(path, "mname"), why);
      }
    }
    if (p.required(Problems.child(path, "rname"), rname)) {
      String why = DomainNames.problem(rname);
      if (why != null) {
        p.add(Problems.child(path, "rname"), why);
      }
    }
    p.range(Problems.child(path, "serial"), serial, 0, 4294967295L);
    p.range(Problems.child(path, "refresh"), refresh, 0, Integer.MAX_VALUE);
    p.range(Problems.child(path, "retry"), retry, 0, Integer.MAX_VALUE);
    p.range(Problems.child(path, "expire"), expire, 0, Integer.MAX_VALUE);
    p.range(Problems.child(path, "minimum"), minimum, 0, Integer.MAX_VALUE);
    if (ttl != null) {
      p.range(Problems.child(path, "ttl"), ttl, 0, Integer.MAX_VALUE);
    }
  }
}
