package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;

/**
 * Zone transfers (AXFR, IXFR) of one zone to secondaries: the client networks allowed to transfer
 * ({@code allow}; an address alone is a single host), the TSIG key every transfer must be signed
 * with, and the secondaries told of every change by NOTIFY ({@code host:port}, port 53 when left
 * out). A request must come from an allowed network (when any is listed) and carry a valid
 * signature (when a key is set); at least one of the two is required, so no section opens a zone to
 * everyone by accident.
 */
public record TransferConfig(
    List<String> allow, TsigConfig tsig, @JsonProperty("notify") List<String> notifyTargets) {

  public TransferConfig {
    allow = Lists.copy(allow);
    notifyTargets = Lists.copy(notifyTargets);
  }

  /** {@code allow}'s entries as networks; only valid on a validated configuration. */
  public List<Cidr> allowedNetworks() {
    return allow.stream().map(TransferConfig::network).toList();
  }

  private static Cidr network(String s) {
    if (s.indexOf('/') >= 0) {
      return Cidr.parse(s);
    }
    byte[] a = Addresses.parse(s);
    return new Cidr(a, a.length * 8);
  }

  void validate(String path, Problems p) {
    if (allow.isEmpty() && tsig == null) {
      p.add(
          path,
          "needs 'allow' (client networks), 'tsig' (a key), or both: a transfer section with"
              + " neither would hand the zone to anyone");
    }
    for (int i = 0; i < allow.size(); i++) {
      String a = allow.get(i);
      String why =
          a == null
              ? "must not be empty"
              : a.indexOf('/') >= 0
                  ? Cidr.problem(a)
                  : Addresses.isLiteral(a)
                      ? null
                      : "must be an address or a network, was '" + a + "'";
      if (why != null) {
        p.add(Problems.index(Problems.child(path, "allow"), i), why);
      }
    }
    if (tsig != null) {
      tsig.validate(Problems.child(path, "tsig"), p);
    }
    for (int i = 0; i < notifyTargets.size(); i++) {
      String why = HostPort.problem(notifyTargets.get(i));
      if (why != null) {
        p.add(Problems.index(Problems.child(path, "notify"), i), why);
      }
    }
  }
}
