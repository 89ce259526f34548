package io.sluice.core.control;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a scoped admin token may change: the named services (FQDNs) and pools, and the pools whose
 * every service is one of them. Reads are not limited; changes of anything else, and changes that
 * act on every service at once, are refused.
 */
public record TokenScope(List<String> services, List<String> pools) {

  public TokenScope {
    services = services == null ? List.of() : List.copyOf(services);
    pools = pools == null ? List.of() : List.copyOf(pools);
  }

  /** True when {@code service} (canonical FQDN) is one of the scope's services. */
  public boolean permitsService(String service) {
    return services.contains(service);
  }

  /**
   * True when {@code pool} is one of the scope's pools, or is used only by services of the scope
   * ({@code usedBy}: the services whose pools include it), so a change of it touches nothing else.
   */
  public boolean permitsPool(String pool, List<String> usedBy) {
    return pools.contains(pool) || (!usedBy.isEmpty() && services.containsAll(usedBy));
  }

  /** The scope as the audit log and refusals name it. */
  public Map<String, Object> view() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("services", services);
    m.put("pools", pools);
    return m;
  }

  /** "services [a.example.com.], pools [p]" for messages. */
  public String describe() {
    return "services " + services + ", pools " + pools;
  }
}
