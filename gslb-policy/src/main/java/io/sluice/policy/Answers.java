package io.sluice.policy;

import io.sluice.core.spi.Decision;
import java.util.ArrayList;
import java.util.List;

/**
 * The answers of one chain result within one snapshot: the spread over variants and, built lazily
 * and then reused, one {@link Decision} per (variant, ECS scope). Readers race benignly: a decision
 * is immutable, so two threads building the same slot build equal values and either may win; no
 * lock is taken.
 */
final class Answers {
  final Spread spread;
  final boolean clientDependent;
  private final ServiceState live;
  private final int family;
  private final boolean failOpen;
  private final boolean lastResort;
  private final Decision[][] cache;
  private final int[][] pools;

  Answers(ServiceState live, int family, ChainResult r, Spread spread, boolean clientDependent) {
    this.live = live;
    this.family = family;
    this.failOpen = r.failOpen();
    this.lastResort = r.lastResort();
    this.spread = spread;
    this.clientDependent = clientDependent;
    this.cache = new Decision[spread.variants()][];
    this.pools = new int[spread.variants()][];
  }

  Decision decision(int variant, int scope) {
    Decision[] byScope = cache[variant];
    if (byScope == null) {
      byScope = new Decision[129];
      cache[variant] = byScope;
    }
    Decision d = byScope[scope];
    if (d == null) {
      d = build(variant, scope);
      byScope[scope] = d;
    }
    return d;
  }

  private Decision build(int variant, int scope) {
    CompiledService svc = live.service();
    long ttl = live.ttl();
    if (lastResort) {
      return switch (svc.config().lastResort().action()) {
        case ADDRESS ->
            new Decision(
                Decision.Outcome.ANSWER,
                svc.lastResortByFamily().get(family),
                null,
                ttl,
                scope,
                List.of());
        case EMPTY -> new Decision(Decision.Outcome.EMPTY, List.of(), null, ttl, scope, List.of());
        case SERVFAIL ->
            new Decision(Decision.Outcome.FAIL, List.of(), null, ttl, scope, List.of());
      };
    }
    List<byte[]> addresses = new ArrayList<>();
    List<String> pools = new ArrayList<>();
    String cname = null;
    for (int m : spread.members(variant)) {
      int p = m >>> 16;
      int e = live.endpointIndex(family, failOpen, p, m & 0xffff);
      byte[] a = svc.endpointAddresses()[p][e];
      if (a == null) {
        if (cname == null) {
          cname = svc.endpoints().get(p).get(e).cname();
        }
      } else {
        addresses.add(a);
      }
      String name = svc.pools().names().get(p);
      if (!pools.contains(name)) {
        pools.add(name);
      }
    }
    return addresses.isEmpty() && cname != null
        ? new Decision(Decision.Outcome.ANSWER, List.of(), cname, ttl, scope, pools)
        : new Decision(Decision.Outcome.ANSWER, addresses, null, ttl, scope, pools);
  }

  /** The distinct pool indexes of variant {@code v}, in answer order (do not modify). */
  int[] pools(int v) {
    int[] p = pools[v];
    if (p == null) {
      p = java.util.Arrays.stream(spread.members(v)).map(m -> m >>> 16).distinct().toArray();
      pools[v] = p;
    }
    return p;
  }
}
