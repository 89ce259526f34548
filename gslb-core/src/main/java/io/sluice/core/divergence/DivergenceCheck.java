package io.sluice.core.divergence;

import io.sluice.core.spi.ClusterMembers;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Asks every node the same question as each client subnet and compares the answers. Two answers are
 * the same when their rcode and their answer sections (as sets of type and record data: order,
 * duplicates, TTL and the ECS scope do not count) are equal. TTLs count only outside the service's
 * TTL rules: a node serving the service TTL and another serving its {@code shiftTtl} (one has
 * restored the long TTL a moment before the other) agree; a TTL that is neither differs from every
 * other TTL. A node that does not answer (after one retry) is reported, not counted as a different
 * answer. Queries run on a bounded pool, all nodes of one subnet back to back so that a change in
 * flight shows as few differences as possible.
 */
public final class DivergenceCheck {
  // A node that leaves this many queries in a row unanswered (each asked twice) is not asked
  // again in this run: ten thousand subnets against a dead node would otherwise take hours.
  static final int GIVE_UP_AFTER = 5;
  private final DnsAsker asker;
  private final int concurrency;
  private final Duration timeout;

  private DivergenceCheck(DnsAsker asker, int concurrency, Duration timeout) {
    this.asker = asker;
    this.concurrency = concurrency;
    this.timeout = timeout;
  }

  /** A check sending at most {@code concurrency} queries at once, each waiting {@code timeout}. */
  public static DivergenceCheck over(DnsAsker asker, int concurrency, Duration timeout) {
    if (concurrency < 1) {
      throw new IllegalArgumentException("concurrency must be at least 1, was " + concurrency);
    }
    return new DivergenceCheck(asker, concurrency, timeout);
  }

  /** A node to ask: its name and where it answers DNS. */
  public record Target(String node, String host, int port) {

    /** {@code HOST:PORT} or {@code [V6]:PORT}; throws with what is wrong. */
    public static Target parse(String node, String hostPort) {
      int colon = hostPort == null ? -1 : hostPort.lastIndexOf(':');
      String why = "expected HOST:PORT, was '" + hostPort + "'";
      if (colon <= 0) {
        throw new IllegalArgumentException(why);
      }
      String host = hostPort.substring(0, colon);
      if (host.startsWith("[") && host.endsWith("]")) {
        host = host.substring(1, host.length() - 1);
      } else if (host.contains(":")) {
        throw new IllegalArgumentException(why + " (an IPv6 address goes in brackets)");
      }
      int port;
      try {
        port = Integer.parseInt(hostPort.substring(colon + 1));
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(why);
      }
      if (host.isEmpty() || port < 1 || port > 65535) {
        throw new IllegalArgumentException(why);
      }
      return new Target(node == null ? hostPort : node, host, port);
    }

    /** The live members that advertise a DNS address, in the registry's order. */
    public static List<Target> of(List<ClusterMembers.Member> members) {
      List<Target> out = new ArrayList<>();
      for (ClusterMembers.Member m : members) {
        if (m.live() && m.dns() != null) {
          out.add(parse(m.node(), m.dns()));
        }
      }
      return out;
    }

    /** {@code host:port} as it was dialled. */
    public String address() {
      return (host.contains(":") ? "[" + host + "]" : host) + ":" + port;
    }
  }

  /**
   * Asks every node for {@code service}/{@code type} as each subnet; {@code ttls} are the TTLs the
   * service may serve (its TTL and shift TTL), empty when unknown (TTLs are then not compared).
   */
  public DivergenceReport run(
      List<Target> nodes, String service, String type, List<String> subnets, Set<Long> ttls)
      throws InterruptedException {
    long start = System.nanoTime();
    String name = service.endsWith(".") ? service : service + ".";
    NodeAnswer[][] answers = new NodeAnswer[subnets.size()][nodes.size()];
    // Per node: queries unanswered in a row, so that a dead node is given up on quickly.
    AtomicInteger[] silent = new AtomicInteger[nodes.size()];
    for (int n = 0; n < silent.length; n++) {
      silent[n] = new AtomicInteger();
    }
    AtomicInteger threadNo = new AtomicInteger();
    ExecutorService pool =
        Executors.newFixedThreadPool(
            concurrency,
            r -> {
              Thread t = new Thread(r, "divergence-check-" + threadNo.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    try {
      List<Future<?>> pending = new ArrayList<>();
      for (int s = 0; s < subnets.size(); s++) {
        for (int n = 0; n < nodes.size(); n++) {
          int si = s;
          int ni = n;
          pending.add(
              pool.submit(
                  () ->
                      answers[si][ni] =
                          ask(nodes.get(ni), silent[ni], name, type, subnets.get(si))));
        }
      }
      for (Future<?> f : pending) {
        try {
          f.get();
        } catch (ExecutionException e) {
          throw new IllegalStateException("a divergence query failed unexpectedly", e.getCause());
        }
      }
    } finally {
      pool.shutdownNow();
    }
    List<DivergenceReport.SubnetResult> findings = new ArrayList<>();
    for (int s = 0; s < subnets.size(); s++) {
      DivergenceReport.SubnetResult r = compare(subnets.get(s), nodes, answers[s], ttls);
      if (r != null) {
        findings.add(r);
      }
    }
    long elapsed = (System.nanoTime() - start) / 1_000_000;
    return new DivergenceReport(service, type, nodes, subnets.size(), findings, elapsed);
  }

  private NodeAnswer ask(Target t, AtomicInteger silent, String name, String type, String subnet) {
    if (silent.get() >= GIVE_UP_AFTER) {
      return NodeAnswer.failed(
          "not asked: the node left " + GIVE_UP_AFTER + " queries in a row unanswered");
    }
    String why = null;
    for (int attempt = 0; attempt < 2; attempt++) {
      try {
        NodeAnswer a = asker.ask(t.host(), t.port(), name, type, subnet, timeout);
        silent.set(0);
        return a;
      } catch (IOException | RuntimeException e) {
        why = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
      }
    }
    silent.incrementAndGet();
    return NodeAnswer.failed(why);
  }

  /** Null when every node gave the same answer; otherwise what each said and who differs. */
  static DivergenceReport.SubnetResult compare(
      String subnet, List<Target> nodes, NodeAnswer[] answers, Set<Long> ttls) {
    Map<String, List<String>> groups = new LinkedHashMap<>();
    Map<String, NodeAnswer> byNode = new LinkedHashMap<>();
    boolean missing = false;
    for (int n = 0; n < nodes.size(); n++) {
      NodeAnswer a = answers[n];
      byNode.put(nodes.get(n).node(), a);
      if (!a.ok()) {
        missing = true;
        continue;
      }
      groups.computeIfAbsent(key(a, ttls), k -> new ArrayList<>()).add(nodes.get(n).node());
    }
    if (groups.size() <= 1 && !missing) {
      return null;
    }
    List<String> majority = List.of();
    for (List<String> g : groups.values()) {
      if (g.size() > majority.size()) {
        majority = g;
      }
    }
    List<String> differing = new ArrayList<>();
    Map<String, Boolean> inMajority = new HashMap<>();
    majority.forEach(m -> inMajority.put(m, true));
    for (Target t : nodes) {
      if (!inMajority.containsKey(t.node())) {
        differing.add(t.node());
      }
    }
    return new DivergenceReport.SubnetResult(
        subnet,
        groups.size() > 1
            ? DivergenceReport.Outcome.DIFFERENT
            : DivergenceReport.Outcome.UNANSWERED,
        byNode,
        differing);
  }

  /** What makes two answers the same: rcode, records, and a TTL only outside the TTL rules. */
  private static String key(NodeAnswer a, Set<Long> ttls) {
    boolean ttlCounts = !ttls.isEmpty() && !a.records().isEmpty() && !ttls.contains(a.ttl());
    return a.rcode() + " " + a.records() + (ttlCounts ? " ttl " + a.ttl() : "");
  }
}
