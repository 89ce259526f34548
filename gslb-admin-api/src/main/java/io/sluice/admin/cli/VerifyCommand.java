package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Asks the DNS server itself, as a set of client subnets, and compares each answer with what the
 * policy chain says it should be: the check behind a drill or a rollback.
 */
@Command(
    name = "verify",
    mixinStandardHelpOptions = true,
    description = {
      "Query the DNS server for SERVICE as each client subnet (EDNS Client Subnet) and compare",
      "the pools answered with the plan. Exits 1 on any mismatch.",
      "Subnets default to the configured network map.",
      "With --all-nodes, query every node of the cluster (or --nodes) as N client subnets",
      "and report the subnets whose answers differ between nodes. Exits 1 on any difference."
    },
    footer = {
      "",
      "Example:",
      "  sluice ctl verify app.example.com --dns 127.0.0.1:5353 --subnet 10.1.0.0/24 --subnet 10.2.0.0/24",
      "  sluice ctl verify --all-nodes app.example.com --subnets 1000",
      "  sluice ctl verify --all-nodes app.example.com --nodes 10.0.0.1:53,10.0.0.2:53"
    })
final class VerifyCommand extends ApiCommand {
  @Parameters(paramLabel = "SERVICE", description = "The service.")
  String service;

  @Option(
      names = "--subnet",
      paramLabel = "CIDR",
      description = "A client subnet to ask as (repeatable).")
  List<String> subnets = new ArrayList<>();

  @Option(
      names = "--dns",
      paramLabel = "HOST:PORT",
      description =
          "DNS server (default: SLUICE_DNS, dns= in the config file, the address recorded in"
              + " --state-dir, else the admin host on port 53).")
  String dns;

  @Option(
      names = "--type",
      defaultValue = "A",
      paramLabel = "A|AAAA",
      description = "Record type (default ${DEFAULT-VALUE}).")
  String type;

  @Option(
      names = "--all-nodes",
      description =
          "Compare the answers of every node of the cluster (GET /api/v1/cluster) with each other"
              + " instead of with the plan.")
  boolean allNodes;

  @Option(
      names = "--nodes",
      split = ",",
      paramLabel = "HOST:PORT",
      description = "With --all-nodes: the DNS servers to compare, instead of the cluster's list.")
  List<String> nodes = new ArrayList<>();

  @Option(
      names = "--subnets",
      paramLabel = "N",
      defaultValue = "256",
      description =
          "With --all-nodes: how many client subnets to ask as, spread over every region's"
              + " networks and the IPv4 and IPv6 space (default ${DEFAULT-VALUE}).")
  int subnetCount;

  /** One subnet's comparison. */
  record Outcome(
      String subnet,
      List<String> expectedPools,
      List<String> gotPools,
      List<String> records,
      String rcode,
      long ttl,
      int scope,
      boolean ok,
      String note) {}

  @Override
  public Integer call() {
    String qtype = type.toUpperCase(Locale.ROOT);
    if (!qtype.equals("A") && !qtype.equals("AAAA")) {
      throw new CtlException(CtlMain.USAGE, "--type must be A or AAAA, was '" + type + "'");
    }
    if (!allNodes && !nodes.isEmpty()) {
      throw new CtlException(CtlMain.USAGE, "--nodes needs --all-nodes");
    }
    if (allNodes) {
      if (dns != null) {
        throw new CtlException(
            CtlMain.USAGE, "--dns and --all-nodes exclude each other: use --nodes");
      }
      if (subnetCount < 1 || subnetCount > 100_000) {
        throw new CtlException(
            CtlMain.USAGE, "--subnets must be between 1 and 100000, was " + subnetCount);
      }
      return new AllNodesVerify(this)
          .run(StatusCommand.normalize(service), qtype, nodes, subnets, subnetCount);
    }
    String[] server = server();
    ApiClient api = api();
    String name = StatusCommand.normalize(service);
    List<String> asked = subnets.isEmpty() ? networks(api) : subnets;
    Map<String, String> poolOf = addressPools(api);
    List<Outcome> outcomes = new ArrayList<>();
    for (String subnet : asked) {
      JsonNode plan =
          api.get(
                  "/api/v1/explain?service="
                      + ApiClient.encode(name)
                      + "&client="
                      + ApiClient.encode(subnet)
                      + "&type="
                      + qtype)
              .path("decision");
      outcomes.add(compare(subnet, plan, name, qtype, server, poolOf));
    }
    boolean allOk = outcomes.stream().allMatch(Outcome::ok);
    if (json()) {
      ObjectMapper m = new ObjectMapper();
      ObjectNode root = m.createObjectNode();
      root.put("service", name);
      root.put("server", server[0] + ":" + server[1]);
      root.put("ok", allOk);
      ArrayNode arr = root.putArray("results");
      outcomes.forEach(o -> arr.add(m.valueToTree(o)));
      printJson(root);
    } else {
      boolean colour = ctl().colour();
      out().println("verify " + name + " " + qtype + " at " + server[0] + ":" + server[1]);
      Table t = new Table("SUBNET", "PLAN", "GOT", "RECORDS", "TTL", "SCOPE", "RESULT");
      for (Outcome o : outcomes) {
        t.row(
            o.subnet(),
            String.join(",", o.expectedPools()),
            String.join(",", o.gotPools()),
            o.records().isEmpty() ? o.rcode() : String.join(",", o.records()),
            o.ttl(),
            o.scope() < 0 ? "-" : "/" + o.scope(),
            new Table.Cell(
                o.ok() ? "ok" : "MISMATCH " + o.note(), o.ok() ? Style.GREEN : Style.RED));
      }
      t.print(out(), colour);
      out()
          .println(
              allOk
                  ? "all " + outcomes.size() + " subnets match the plan"
                  : "answers differ from the plan");
    }
    return allOk ? CtlMain.OK : CtlMain.FAILED;
  }

  private Outcome compare(
      String subnet,
      JsonNode plan,
      String name,
      String qtype,
      String[] server,
      Map<String, String> poolOf) {
    List<String> expectedPools = strings(plan.path("pools"));
    String outcome = plan.path("outcome").asText("answer");
    DnsVerifier.DnsAnswer a;
    try {
      a = ctl().verifier.query(server[0], Integer.parseInt(server[1]), name, qtype, subnet);
    } catch (IOException e) {
      return new Outcome(
          subnet,
          expectedPools,
          List.of(),
          List.of(),
          "-",
          0,
          -1,
          false,
          "query failed: " + e.getMessage());
    }
    Set<String> got = new LinkedHashSet<>();
    List<String> unknown = new ArrayList<>();
    String cname = plan.hasNonNull("cname") ? plan.get("cname").asText() : null;
    for (String r : a.records()) {
      String pool = poolOf.get(r.toLowerCase(Locale.ROOT));
      if (pool != null) {
        got.add(pool);
      } else {
        unknown.add(r);
      }
    }
    String note = "";
    boolean ok;
    switch (outcome) {
      case "fail" -> {
        ok = a.rcode().equals("SERVFAIL");
        note = ok ? "" : "plan is SERVFAIL, got " + a.rcode();
      }
      case "empty" -> {
        ok = a.rcode().equals("NOERROR") && a.records().isEmpty();
        note = ok ? "" : "plan is an empty answer";
      }
      default -> {
        if (!a.rcode().equals("NOERROR")) {
          ok = false;
          note = "rcode " + a.rcode();
        } else if (cname != null) {
          ok = a.records().stream().anyMatch(r -> StatusCommand.normalize(r).equals(cname));
          note = ok ? "" : "plan is CNAME " + cname;
          if (ok) {
            got.addAll(expectedPools);
          }
        } else if (!unknown.isEmpty()) {
          ok = false;
          note = "records in no pool: " + String.join(",", unknown);
        } else if (plan.path("addresses").isEmpty() != a.records().isEmpty()) {
          ok = false;
          note = a.records().isEmpty() ? "no records" : "plan has no records";
        } else {
          ok = expectedPools.containsAll(got);
          note = ok ? "" : "pools outside the plan";
        }
      }
    }
    return new Outcome(
        subnet,
        expectedPools,
        List.copyOf(got),
        a.records(),
        a.rcode(),
        a.ttl(),
        a.scopePrefix(),
        ok,
        note);
  }

  private String[] server() {
    String s = dns;
    if (s == null) {
      s = ctl().io.env().get("SLUICE_DNS");
    }
    if (s == null) {
      s = ctl().fileValue("dns");
    }
    if (s == null) {
      s = ctl().recordedDns();
    }
    if (s == null) {
      String host = URI.create(ctl().resolvedUrl()).getHost();
      s = (host.contains(":") ? "[" + host + "]" : host) + ":53";
    }
    int colon = s.lastIndexOf(':');
    String host = colon < 0 ? s : s.substring(0, colon);
    String port = colon < 0 ? "53" : s.substring(colon + 1);
    if (host.startsWith("[") && host.endsWith("]")) {
      host = host.substring(1, host.length() - 1);
    }
    try {
      int p = Integer.parseInt(port);
      if (p < 1 || p > 65535 || host.isEmpty()) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException e) {
      throw new CtlException(CtlMain.USAGE, "--dns: expected HOST:PORT, was '" + s + "'");
    }
    return new String[] {host, port};
  }

  private static List<String> networks(ApiClient api) {
    List<String> out = new ArrayList<>();
    for (JsonNode n : api.get("/api/v1/topology").path("networks")) {
      out.add(n.path("cidr").asText());
    }
    if (out.isEmpty()) {
      throw new CtlException(CtlMain.USAGE, "no network map is configured: give --subnet CIDR");
    }
    return out;
  }

  /** Endpoint address (or CNAME target) to the pool it belongs to. */
  private static Map<String, String> addressPools(ApiClient api) {
    Map<String, String> m = new HashMap<>();
    for (JsonNode p : api.get("/api/v1/pools").path("pools")) {
      for (JsonNode e : p.path("endpoints")) {
        String key =
            e.hasNonNull("address")
                ? canonicalAddress(e.get("address").asText())
                : e.path("cname").asText();
        m.put(key.toLowerCase(Locale.ROOT), p.path("name").asText());
      }
    }
    return m;
  }

  /** IPv6 literals in one spelling, so the API's and the DNS answer's forms compare equal. */
  private static String canonicalAddress(String a) {
    byte[] b = io.sluice.core.config.Addresses.parse(a);
    try {
      return b == null ? a : java.net.InetAddress.getByAddress(b).getHostAddress();
    } catch (java.net.UnknownHostException e) {
      return a;
    }
  }

  private static List<String> strings(JsonNode arr) {
    List<String> out = new ArrayList<>();
    arr.forEach(n -> out.add(n.asText()));
    return out;
  }
}
