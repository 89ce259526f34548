package io.sluice.core.spi;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The simplest planner: every usable endpoint of every pool of the service, for every client. It
 * keeps the service path working end to end before (or without) the policy chain.
 */
public final class AllEndpointsPlanner implements AnswerPlanner {
  private final SnapshotStore store;
  private volatile Compiled compiled;

  public AllEndpointsPlanner(SnapshotStore store) {
    this.store = store;
  }

  @Override
  public Decision plan(String service, AddressFamily family, ClientInfo client) {
    return plan(store.current(), service, family, client);
  }

  @Override
  public Decision plan(Snapshot s, String service, AddressFamily family, ClientInfo client) {
    Compiled c = compiled;
    if (c == null || c.version != s.version()) {
      c = compile(s);
      compiled = c;
    }
    Decision[] d = c.decisions.get(service);
    return d == null ? Decision.of(Decision.Outcome.UNKNOWN_SERVICE, 0) : d[family.ordinal()];
  }

  @Override
  public long servedTtl(String service) {
    Decision d = plan(service, AddressFamily.V4, null);
    return d.outcome() == Decision.Outcome.UNKNOWN_SERVICE ? -1 : d.ttl();
  }

  private static Compiled compile(Snapshot s) {
    Map<String, Decision[]> out = new HashMap<>();
    for (ZoneConfig z : s.config().zones()) {
      for (ServiceConfig svc : z.services()) {
        String fqdn = svc.fqdn(z.origin());
        Long override = s.traffic().plan(fqdn).ttlOverride();
        long ttl = override != null ? override : svc.ttl();
        Decision[] byFamily = new Decision[AddressFamily.values().length];
        for (AddressFamily f : AddressFamily.values()) {
          List<byte[]> addrs = new ArrayList<>();
          List<String> pools = new ArrayList<>();
          String cname = null;
          for (var sp : svc.pools()) {
            PoolConfig pool = s.config().pools().get(sp.pool());
            for (EndpointConfig e : pool.endpoints()) {
              if (!s.health().verdict(PoolConfig.endpointKey(sp.pool(), e)).usable()) {
                continue;
              }
              byte[] a = e.addressBytes();
              if (a == null && cname == null) {
                cname = e.cname();
                pools.add(sp.pool());
              } else if (a != null && a.length == f.length()) {
                addrs.add(a);
                if (!pools.contains(sp.pool())) {
                  pools.add(sp.pool());
                }
              }
            }
          }
          byFamily[f.ordinal()] =
              addrs.isEmpty() && cname != null
                  ? Decision.cname(cname, ttl, 0, pools)
                  : Decision.answer(addrs, ttl, 0, pools);
        }
        out.put(fqdn, byFamily);
      }
    }
    return new Compiled(s.version(), out);
  }

  private record Compiled(long version, Map<String, Decision[]> decisions) {}
}
