package io.sluice.dns.zone;

import java.util.List;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;

/**
 * What the zone data says about one (name, type): the rcode, whether the answer is authoritative,
 * the answer and authority sections, the targets whose addresses go in the additional section (in
 * the order they are added), and the service to ask the planner when the name is a GSLB service. A
 * service resolution may carry a CNAME chain that led to it in {@code answer}.
 */
public record Resolution(
    int rcode,
    boolean authoritative,
    List<Record> answer,
    List<Record> authority,
    List<AdditionalTarget> additional,
    String service) {

  public Resolution {
    answer = List.copyOf(answer);
    authority = List.copyOf(authority);
    additional = List.copyOf(additional);
  }

  /** True when the answer is computed per query by the planner. */
  public boolean isService() {
    return service != null;
  }

  /** An authoritative answer with records and no authority data. */
  static Resolution positive(List<Record> answer) {
    return new Resolution(Rcode.NOERROR, true, answer, List.of(), List.of(), null);
  }

  /** An authoritative answer with records and the address data of their targets. */
  static Resolution positive(List<Record> answer, List<AdditionalTarget> additional) {
    return new Resolution(Rcode.NOERROR, true, answer, List.of(), additional, null);
  }
}
