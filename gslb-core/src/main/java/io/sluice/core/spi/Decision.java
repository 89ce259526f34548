package io.sluice.core.spi;

import java.util.List;

/**
 * The answer the policy chain chose for one client: addresses of the asked family or a CNAME
 * target, the TTL to serve, and the ECS scope prefix (0 when the answer does not depend on the
 * client). Planners may return the same instance for equal decisions, which lets the DNS module
 * cache encoded answers by identity.
 */
public record Decision(
    Outcome outcome,
    List<byte[]> addresses,
    String cname,
    long ttl,
    int scopePrefix,
    List<String> pools) {

  /** What kind of answer to send. */
  public enum Outcome {
    /** Addresses (possibly none of the asked family: NODATA) or a CNAME. */
    ANSWER,
    /** An empty NOERROR answer (the service's last resort). */
    EMPTY,
    /** SERVFAIL (the service's last resort). */
    FAIL,
    /** The name is not a service (the planner does not know it). */
    UNKNOWN_SERVICE
  }

  public Decision {
    addresses = List.copyOf(addresses);
    pools = List.copyOf(pools);
  }

  /** A decision with addresses. */
  public static Decision answer(List<byte[]> addresses, long ttl, int scope, List<String> pools) {
    return new Decision(Outcome.ANSWER, addresses, null, ttl, scope, pools);
  }

  /** A decision with a CNAME target (absolute, lower case). */
  public static Decision cname(String target, long ttl, int scope, List<String> pools) {
    return new Decision(Outcome.ANSWER, List.of(), target, ttl, scope, pools);
  }

  /** A last-resort or error outcome without records. */
  public static Decision of(Outcome outcome, long ttl) {
    return new Decision(outcome, List.of(), null, ttl, 0, List.of());
  }
}
