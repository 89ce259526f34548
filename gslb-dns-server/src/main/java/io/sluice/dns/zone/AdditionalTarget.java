package io.sluice.dns.zone;

import java.util.List;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;

/**
 * The address data a response adds for one target name of an NS, MX or SRV record (RFC 1035 §3.3,
 * RFC 2181 §9): the target's A and AAAA records from the zone, or the GSLB service bound to it,
 * whose addresses the planner chooses per client. {@code required} marks referral glue below the
 * delegation, which must not be dropped to make the response fit (RFC 9471).
 */
public record AdditionalTarget(
    Name target, List<Record> a, List<Record> aaaa, String service, boolean required) {

  public AdditionalTarget {
    a = List.copyOf(a);
    aaaa = List.copyOf(aaaa);
  }

  /** True when the target's addresses come from the planner. */
  public boolean isService() {
    return service != null;
  }
}
