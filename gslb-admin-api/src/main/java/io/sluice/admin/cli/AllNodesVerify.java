package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.sluice.core.config.Cidr;
import io.sluice.core.divergence.ClientSubnets;
import io.sluice.core.divergence.DivergenceCheck;
import io.sluice.core.divergence.DivergenceReport;
import io.sluice.core.divergence.NodeAnswer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * {@code sluice ctl verify --all-nodes}: asks every node of the cluster (or the nodes given) the
 * same question as each client subnet and reports the subnets whose answers differ.
 */
final class AllNodesVerify {
  // Loopback and LAN answers take well under a millisecond; a few in flight keep the check short
  // without flooding a node.
  private static final int CONCURRENCY = 16;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  private final VerifyCommand cmd;

  AllNodesVerify(VerifyCommand cmd) {
    this.cmd = cmd;
  }

  int run(String name, String qtype, List<String> givenNodes, List<String> givenSubnets, int n) {
    List<String> bad = new ArrayList<>();
    for (String s : givenSubnets) {
      String why = Cidr.problem(s);
      if (why != null) {
        bad.add("--subnet " + why);
      }
    }
    if (!bad.isEmpty()) {
      throw new CtlException(CtlMain.USAGE, String.join("; ", bad));
    }
    ApiClient api = cmd.api();
    List<DivergenceCheck.Target> nodes = givenNodes.isEmpty() ? members(api) : parse(givenNodes);
    List<String> subnets =
        givenSubnets.isEmpty() ? ClientSubnets.spread(n, regions(api)) : givenSubnets;
    DivergenceReport report;
    try {
      report =
          DivergenceCheck.over(cmd.ctl().verifier, CONCURRENCY, TIMEOUT)
              .run(nodes, name, qtype, subnets, ttls(api, name));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CtlException(CtlMain.FAILED, "interrupted");
    }
    if (cmd.json()) {
      cmd.printJson(json(report));
    } else {
      print(report);
    }
    return report.identical() ? CtlMain.OK : CtlMain.FAILED;
  }

  /** The live members the node lists at {@code GET /api/v1/cluster}. */
  private static List<DivergenceCheck.Target> members(ApiClient api) {
    JsonNode cluster;
    try {
      cluster = api.get("/api/v1/cluster");
    } catch (CtlException e) {
      throw new CtlException(
          e.exitCode(),
          "cannot list the cluster's nodes (" + e.getMessage() + "); give --nodes HOST:PORT,...");
    }
    JsonNode list = cluster.has("members") ? cluster.get("members") : cluster.path("nodes");
    List<DivergenceCheck.Target> out = new ArrayList<>();
    for (JsonNode m : list) {
      // A node whose lease lapsed ("live" false, shown as "connected" false) is not asked.
      boolean live =
          m.has("live") ? m.get("live").asBoolean() : m.path("connected").asBoolean(true);
      if (live && m.hasNonNull("dns")) {
        String node = m.hasNonNull("node") ? m.get("node").asText() : m.path("name").asText(null);
        out.add(target(node, m.get("dns").asText()));
      }
    }
    if (out.isEmpty()) {
      throw new CtlException(
          CtlMain.USAGE,
          "the node lists no live cluster members with a DNS address; give --nodes HOST:PORT,...");
    }
    return out;
  }

  private static List<DivergenceCheck.Target> parse(List<String> given) {
    List<DivergenceCheck.Target> out = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (String g : given) {
      if (!seen.add(g)) {
        throw new CtlException(CtlMain.USAGE, "--nodes: '" + g + "' is given twice");
      }
      out.add(target(null, g));
    }
    return out;
  }

  private static DivergenceCheck.Target target(String node, String hostPort) {
    try {
      return DivergenceCheck.Target.parse(node, hostPort);
    } catch (IllegalArgumentException e) {
      throw new CtlException(
          CtlMain.USAGE, (node == null ? "--nodes" : "node " + node) + ": " + e.getMessage());
    }
  }

  /** The network map's (and GeoIP samples') networks by region, so every region is asked as. */
  private static Map<String, List<Cidr>> regions(ApiClient api) {
    JsonNode topology = api.get("/api/v1/topology");
    Map<String, List<Cidr>> out = new TreeMap<>();
    for (String field : List.of("networks", "geoipSamples")) {
      for (JsonNode n : topology.path(field)) {
        out.computeIfAbsent(n.path("region").asText(), r -> new ArrayList<>())
            .add(Cidr.parse(n.path("cidr").asText()));
      }
    }
    return out;
  }

  /** The TTLs the service may serve: its TTL, and its shift TTL. */
  private static Set<Long> ttls(ApiClient api, String name) {
    JsonNode svc = api.get("/api/v1/services/" + ApiClient.encode(name));
    Set<Long> out = new HashSet<>();
    for (String f : List.of("ttl", "shiftTtl")) {
      if (svc.path(f).isNumber()) {
        out.add(svc.get(f).asLong());
      }
    }
    return out;
  }

  private void print(DivergenceReport r) {
    boolean colour = cmd.ctl().colour();
    var out = cmd.out();
    out.println(
        "verify --all-nodes "
            + r.service()
            + " "
            + r.type()
            + ": "
            + r.nodes().size()
            + " nodes, "
            + r.subnets()
            + " client subnets");
    // Nodes given by address need no table of names.
    if (r.nodes().stream().anyMatch(t -> !t.node().equals(t.address()))) {
      Table nodes = new Table("NODE", "DNS");
      r.nodes().forEach(t -> nodes.row(t.node(), t.address()));
      nodes.print(out, colour);
    }
    if (!r.findings().isEmpty()) {
      out.println();
      List<String> header = new ArrayList<>(List.of("SUBNET", "RESULT"));
      r.nodes().forEach(t -> header.add(t.node()));
      header.add("DIFFERING");
      Table t = new Table(header.toArray(String[]::new));
      for (DivergenceReport.SubnetResult f : r.findings()) {
        List<Object> row = new ArrayList<>();
        row.add(f.subnet());
        boolean differ = f.outcome() == DivergenceReport.Outcome.DIFFERENT;
        row.add(new Table.Cell(differ ? "DIFFERENT" : "UNANSWERED", Style.RED));
        for (DivergenceCheck.Target n : r.nodes()) {
          NodeAnswer a = f.answers().get(n.node());
          row.add(a.ok() ? answerCell(a) : "no answer: " + a.error());
        }
        row.add(String.join(",", f.differing()));
        t.row(row.toArray());
      }
      t.print(out, colour);
      out.println();
    }
    String took =
        String.format(
            java.util.Locale.ROOT,
            " (%d queries in %.1f s)",
            (long) r.subnets() * r.nodes().size(),
            r.elapsedMillis() / 1000.0);
    out.println(
        (r.identical()
                ? "all "
                    + r.subnets()
                    + " subnets answered identically by "
                    + r.nodes().size()
                    + " nodes"
                : r.different()
                    + " of "
                    + r.subnets()
                    + " subnets answered differently, "
                    + r.unanswered()
                    + " not answered by every node")
            + took);
  }

  /** {@code NOERROR A 192.0.2.1,A 192.0.2.2 ttl 60}, or just the rcode when nothing answers. */
  private static String answerCell(NodeAnswer a) {
    List<String> data = new ArrayList<>();
    a.records().forEach(rr -> data.add(rr.toString()));
    return a.rcode()
        + (data.isEmpty() ? "" : " " + String.join(",", data))
        + (a.ttl() >= 0 && !a.records().isEmpty() ? " ttl " + a.ttl() : "");
  }

  private static ObjectNode json(DivergenceReport r) {
    ObjectMapper m = new ObjectMapper();
    ObjectNode root = m.createObjectNode();
    root.put("service", r.service());
    root.put("type", r.type());
    root.put("identical", r.identical());
    root.put("subnets", r.subnets());
    root.put("different", r.different());
    root.put("unanswered", r.unanswered());
    root.put("elapsedMillis", r.elapsedMillis());
    ArrayNode nodes = root.putArray("nodes");
    r.nodes().forEach(t -> nodes.addObject().put("node", t.node()).put("dns", t.address()));
    ArrayNode findings = root.putArray("findings");
    for (DivergenceReport.SubnetResult f : r.findings()) {
      ObjectNode o = findings.addObject();
      o.put("subnet", f.subnet());
      o.put("outcome", f.outcome().name().toLowerCase(java.util.Locale.ROOT));
      ArrayNode differing = o.putArray("differing");
      f.differing().forEach(differing::add);
      ObjectNode answers = o.putObject("answers");
      f.answers()
          .forEach(
              (node, a) -> {
                ObjectNode x = answers.putObject(node);
                if (a.ok()) {
                  x.put("rcode", a.rcode());
                  ArrayNode recs = x.putArray("records");
                  a.records()
                      .forEach(
                          rr -> recs.addObject().put("type", rr.type()).put("data", rr.data()));
                  x.put("ttl", a.ttl());
                } else {
                  x.put("error", a.error());
                }
              });
    }
    return root;
  }
}
