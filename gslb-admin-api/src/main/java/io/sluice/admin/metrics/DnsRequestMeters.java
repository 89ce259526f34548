package io.sluice.admin.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.sluice.core.spi.DnsQueryLabels;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The {@code sluice_dns_requests_total} counters: per zone, one fixed table indexed by transport,
 * query-type label and rcode label ({@link DnsQueryLabels}). A query costs one map read by the
 * zone's origin (a configured name), one array read and one add; a counter is registered the first
 * time its cell is used, so the series are bounded by zones × the fixed label sets, whatever the
 * clients send.
 */
final class DnsRequestMeters {
  private static final int QTYPES = DnsQueryLabels.QTYPES.size();
  private static final int RCODES = DnsQueryLabels.RCODES.size();
  private static final int CELLS = 2 * QTYPES * RCODES;

  private final MeterRegistry registry;
  private final ConcurrentHashMap<String, AtomicReferenceArray<Counter>> byZone =
      new ConcurrentHashMap<>();

  DnsRequestMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  Counter get(String zone, int qtype, int rcode, boolean tcp) {
    String z = zone == null ? "" : zone;
    AtomicReferenceArray<Counter> table = byZone.get(z);
    if (table == null) {
      table = byZone.computeIfAbsent(z, k -> new AtomicReferenceArray<>(CELLS));
    }
    int q = DnsQueryLabels.qtypeIndex(qtype);
    int r = DnsQueryLabels.rcodeIndex(rcode);
    int cell = ((tcp ? QTYPES : 0) + q) * RCODES + r;
    Counter c = table.get(cell);
    if (c == null) {
      // Registering the same name and tags twice returns the same counter, so a race is harmless.
      c =
          Counter.builder("sluice.dns.requests")
              .description("DNS queries answered, by zone, query type, rcode and transport")
              .tags(
                  "zone",
                  z,
                  "qtype",
                  DnsQueryLabels.QTYPES.get(q),
                  "rcode",
                  DnsQueryLabels.RCODES.get(r),
                  "transport",
                  tcp ? "tcp" : "udp")
              .register(registry);
      table.lazySet(cell, c);
    }
    return c;
  }
}
