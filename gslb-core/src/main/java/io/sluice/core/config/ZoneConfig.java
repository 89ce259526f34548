package io.sluice.core.config;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * A zone Sluice is authoritative for: its SOA and NS, static records declared inline and/or loaded
 * from an RFC 1035 master file, GSLB services whose answers the policy chain computes, and who may
 * transfer it (null: nobody), and how it is signed with DNSSEC (null: unsigned).
 */
public record ZoneConfig(
    String origin,
    String file,
    Long ttl,
    SoaConfig soa,
    List<String> ns,
    List<RecordConfig> records,
    List<ServiceConfig> services,
    TransferConfig transfer,
    DnssecConfig dnssec) {

  public ZoneConfig {
    origin = origin == null ? null : DomainNames.canonical(origin);
    ttl = ttl == null ? 3600L : ttl;
    ns = Lists.copy(ns);
    records = Lists.copy(records);
    services = Lists.copy(services);
  }

  /** A zone without zone transfers. */
  public ZoneConfig(
      String origin,
      String file,
      Long ttl,
      SoaConfig soa,
      List<String> ns,
      List<RecordConfig> records,
      List<ServiceConfig> services) {
    this(origin, file, ttl, soa, ns, records, services, null, null);
  }

  /** An unsigned zone. */
  public ZoneConfig(
      String origin,
      String file,
      Long ttl,
      SoaConfig soa,
      List<String> ns,
      List<RecordConfig> records,
      List<ServiceConfig> services,
      TransferConfig transfer) {
    this(origin, file, ttl, soa, ns, records, services, transfer, null);
  }

  /** True when the zone is signed: a {@code dnssec} section that is not {@code enabled: false}. */
  public boolean signed() {
    return dnssec != null && dnssec.enabled();
  }

  void validate(String path, SluiceConfig root, Problems p) {
    if (!p.required(Problems.child(path, "origin"), origin)) {
      return;
    }
    String bad = DomainNames.problem(origin);
    if (bad != null) {
      p.add(Problems.child(path, "origin"), bad);
    }
    p.range(Problems.child(path, "ttl"), ttl, 0, Integer.MAX_VALUE);
    if (file == null && soa == null) {
      p.add(Problems.child(path, "soa"), "is required unless the zone is loaded from a file");
    }
    if (file == null && ns.isEmpty()) {
      p.add(Problems.child(path, "ns"), "at least one name server is required");
    }
    if (soa != null) {
      soa.validate(Problems.child(path, "soa"), p);
    }
    for (int i = 0; i < ns.size(); i++) {
      String why = DomainNames.problem(ns.get(i));
      if (why != null) {
        p.add(Problems.index(Problems.child(path, "ns"), i), why);
      }
    }
    for (int i = 0; i < records.size(); i++) {
      records.get(i).validate(Problems.index(Problems.child(path, "records"), i), origin, p);
    }
    Set<String> serviceNames = new HashSet<>();
    for (int i = 0; i < services.size(); i++) {
      String sp = Problems.index(Problems.child(path, "services"), i);
      ServiceConfig s = services.get(i);
      s.validate(sp, origin, root, p);
      if (s.name() != null && !serviceNames.add(s.fqdn(origin))) {
        p.add(Problems.child(sp, "name"), "duplicate service '" + s.fqdn(origin) + "'");
      }
    }
    if (transfer != null) {
      transfer.validate(Problems.child(path, "transfer"), p);
    }
    if (dnssec != null) {
      dnssec.validate(Problems.child(path, "dnssec"), p);
    }
  }
}
