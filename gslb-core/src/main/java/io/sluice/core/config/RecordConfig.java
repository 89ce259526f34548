package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonFormat;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * One static RRset declared inline: owner name (relative to the zone, {@code @} for the apex),
 * type, optional TTL and one or more record data strings in master-file syntax. The record data is
 * parsed by the DNS module, which reports errors against the same path.
 */
public record RecordConfig(
    String name,
    String type,
    Long ttl,
    @JsonFormat(with = JsonFormat.Feature.ACCEPT_SINGLE_VALUE_AS_ARRAY) List<String> data) {

  /** Record types that may be declared inline. */
  public static final Set<String> TYPES =
      Set.of(
          "A", "AAAA", "CNAME", "MX", "TXT", "SRV", "CAA", "PTR", "NS", "DNAME", "NAPTR", "SSHFP",
          "TLSA", "HINFO", "DS", "SVCB", "HTTPS", "URI", "LOC", "SPF");

  public RecordConfig {
    type = type == null ? null : type.toUpperCase(Locale.ROOT);
    data = Lists.copy(data);
  }

  void validate(String path, String origin, Problems p) {
    if (p.required(Problems.child(path, "name"), name)) {
      String why = DomainNames.problem(DomainNames.absolute(name, origin));
      if (why != null) {
        p.add(Problems.child(path, "name"), why);
      } else if (!DomainNames.isAtOrBelow(DomainNames.absolute(name, origin), origin)) {
        p.add(Problems.child(path, "name"), "'" + name + "' is outside the zone " + origin);
      }
    }
    if (p.required(Problems.child(path, "type"), type) && !TYPES.contains(type)) {
      p.add(Problems.child(path, "type"), "unsupported record type '" + type + "'");
    }
    if ("SOA".equals(type)) {
      p.add(Problems.child(path, "type"), "declare the SOA under the zone's 'soa' key");
    }
    if (ttl != null) {
      p.range(Problems.child(path, "ttl"), ttl, 0, Integer.MAX_VALUE);
    }
    if (data.isEmpty()) {
      p.add(Problems.child(path, "data"), "at least one value is required");
    }
  }
}
