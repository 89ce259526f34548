package io.sluice.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.admin.cli.CtlIo;
import io.sluice.admin.cli.CtlMain;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.Verdict;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.client.DnsjavaVerifier;
import io.sluice.server.app.CliOverrides;
import io.sluice.server.app.SluiceRuntime;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A whole Sluice process started in this JVM from a YAML file in a temporary directory, as {@code
 * main} starts it: DNS on 127.0.0.1 and an ephemeral port, the admin API on another, its local
 * admin token read from the state directory. Tests talk to it only through sockets, except where
 * they stand in for the probes by writing health into the snapshot store.
 */
final class LiveNode implements AutoCloseable {
  static final ObjectMapper JSON = new ObjectMapper();

  final Path configFile;
  final SluiceRuntime runtime;
  final String token;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

  private LiveNode(Path configFile, SluiceRuntime runtime, String token) {
    this.configFile = configFile;
    this.runtime = runtime;
    this.token = token;
  }

  /**
   * Writes {@code yaml} (which declares no admin tokens) to {@code dir/sluice.yaml} and starts the
   * node on it; requests use the local admin token the node writes to its state directory.
   */
  static LiveNode start(Path dir, String yaml) throws Exception {
    return start(dir, yaml, null);
  }

  /** As {@link #start(Path, String)}, with {@code adminToken} for requests when it is not null. */
  static LiveNode start(Path dir, String yaml, String adminToken) throws Exception {
    return start(dir, yaml, adminToken, Ticker.SYSTEM);
  }

  /**
   * As {@link #start(Path, String, String)}, with {@code clock} as the traffic controller's and the
   * admin API's clock (see {@link SluiceRuntime#start(io.sluice.core.config.SluiceConfig, Path,
   * CliOverrides, Ticker)}).
   */
  static LiveNode start(Path dir, String yaml, String adminToken, Ticker clock) throws Exception {
    Path file = dir.resolve("sluice.yaml");
    Files.writeString(file, yaml);
    SluiceRuntime runtime =
        SluiceRuntime.start(ConfigLoader.load(file), file, CliOverrides.NONE, clock);
    try {
      String token = adminToken;
      if (token == null) {
        Path stateDir = runtime.node().store().current().config().stateDirectory();
        token = Files.readString(stateDir.resolve("admin.token"), StandardCharsets.UTF_8).trim();
      }
      return new LiveNode(file, runtime, token);
    } catch (IOException | RuntimeException e) {
      runtime.close();
      throw e;
    }
  }

  SnapshotStore store() {
    return runtime.node().store();
  }

  /** Stands in for the probes: publishes a verdict for endpoints, as the health engine does. */
  void setVerdict(Verdict v, String... keys) {
    Map<String, EndpointHealth> changes = new HashMap<>();
    for (String k : keys) {
      changes.put(k, EndpointHealth.of(v, System.currentTimeMillis(), "set by a test"));
    }
    // Through the traffic system's publisher, as the probes publish: its reaction goes out with it.
    runtime.traffic().healthPublisher().publish(h -> h.withAll(changes, Set.of()), p -> {});
  }

  int dnsPort() {
    return runtime.node().port();
  }

  String adminUrl() {
    return "http://127.0.0.1:" + runtime.admin().port();
  }

  // ---- DNS ----

  SimpleResolver resolver(boolean tcp) {
    SimpleResolver r = new SimpleResolver(new InetSocketAddress("127.0.0.1", dnsPort()));
    r.setTCP(tcp);
    r.setTimeout(Duration.ofSeconds(3));
    return r;
  }

  /** Asks for {@code name}/{@code type}; with {@code subnet} (CIDR) as EDNS Client Subnet. */
  Message query(String name, int type, String subnet, boolean tcp) throws IOException {
    return resolver(tcp).send(queryMessage(name, type, subnet));
  }

  /** A query for {@code name}/{@code type}; with {@code subnet} (CIDR) as EDNS Client Subnet. */
  static Message queryMessage(String name, int type, String subnet) throws IOException {
    Message q = Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
    if (subnet != null) {
      String[] parts = subnet.split("/");
      ClientSubnetOption ecs =
          new ClientSubnetOption(Integer.parseInt(parts[1]), InetAddress.getByName(parts[0]));
      q.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(ecs)), Section.ADDITIONAL);
    }
    return q;
  }

  Message query(String name, String subnet) throws IOException {
    return query(name, Type.A, subnet, false);
  }

  /** The answer section's record data, in order. */
  static List<String> addresses(Message m) {
    List<String> out = new ArrayList<>();
    for (Record r : m.getSection(Section.ANSWER)) {
      out.add(r.rdataToString());
    }
    return out;
  }

  /** The ECS scope prefix of the answer, or -1 when it carries no ECS option. */
  static int scope(Message m) {
    OPTRecord opt = m.getOPT();
    if (opt == null || opt.getOptions(EDNSOption.Code.CLIENT_SUBNET).isEmpty()) {
      return -1;
    }
    return ((ClientSubnetOption) opt.getOptions(EDNSOption.Code.CLIENT_SUBNET).get(0))
        .getScopePrefixLength();
  }

  // ---- admin API ----

  /** One admin API answer: status and parsed JSON body (null when not JSON). */
  record Reply(int status, String body) {
    JsonNode json() throws IOException {
      return JSON.readTree(body);
    }
  }

  Reply get(String path) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(adminUrl() + path)).GET());
  }

  /** A GET with another bearer token than the admin's. */
  Reply get(String path, String bearer) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(adminUrl() + path)).GET(), bearer);
  }

  Reply post(String path, String body) throws IOException, InterruptedException {
    return post(path, body, token);
  }

  /** A POST with another bearer token than the admin's. */
  Reply post(String path, String body, String bearer) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(adminUrl() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body)),
        bearer);
  }

  /** A PUT of a JSON body with {@code bearer} as the token. */
  Reply put(String path, String body, String bearer) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(adminUrl() + path))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)),
        bearer);
  }

  /** A DELETE with the admin token. */
  Reply delete(String path) throws IOException, InterruptedException {
    return delete(path, token);
  }

  /** A DELETE with {@code bearer} as the token. */
  Reply delete(String path, String bearer) throws IOException, InterruptedException {
    return send(HttpRequest.newBuilder(URI.create(adminUrl() + path)).DELETE(), bearer);
  }

  /** A PUT with the admin token. */
  Reply put(String path, String body) throws IOException, InterruptedException {
    return send(
        HttpRequest.newBuilder(URI.create(adminUrl() + path))
            .header("Content-Type", "application/json")
            .PUT(HttpRequest.BodyPublishers.ofString(body)));
  }

  /** A POST sent without waiting for the reply, on the same (warm) client as the others. */
  CompletableFuture<Reply> postAsync(String path, String body) {
    HttpRequest req =
        HttpRequest.newBuilder(URI.create(adminUrl() + path))
            .header("Content-Type", "application/json")
            .header("Authorization", "Bearer " + token)
            .timeout(Duration.ofSeconds(5))
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build();
    return http.sendAsync(req, HttpResponse.BodyHandlers.ofString())
        .thenApply(r -> new Reply(r.statusCode(), r.body()));
  }

  private Reply send(HttpRequest.Builder b) throws IOException, InterruptedException {
    return send(b, token);
  }

  private Reply send(HttpRequest.Builder b, String bearer)
      throws IOException, InterruptedException {
    HttpResponse<String> r =
        http.send(
            b.header("Authorization", "Bearer " + bearer).timeout(Duration.ofSeconds(5)).build(),
            HttpResponse.BodyHandlers.ofString());
    return new Reply(r.statusCode(), r.body());
  }

  /** The actions of the newest 1000 audit events, newest first. */
  List<String> auditActions() throws IOException, InterruptedException {
    List<String> out = new ArrayList<>();
    for (JsonNode e : get("/api/v1/audit?limit=1000").json().path("events")) {
      out.add(e.path("action").asText());
    }
    return out;
  }

  // ---- waiting for a state (never asserting how fast it comes) ----

  /** Polls {@code c} until it holds, failing after a generous 30 s. */
  static void waitFor(String what, java.util.function.BooleanSupplier c)
      throws InterruptedException {
    long deadline = System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(30);
    while (!c.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("timed out waiting for " + what);
      }
      Thread.sleep(20);
    }
  }

  /** A condition that may ask the node over its API. */
  interface Check {
    boolean holds() throws Exception;
  }

  /** {@code c} as a condition for {@link #waitFor}; a failed request fails the test. */
  static java.util.function.BooleanSupplier api(Check c) {
    return () -> {
      try {
        return c.holds();
      } catch (Exception e) {
        throw new AssertionError(e);
      }
    };
  }

  // ---- sluice ctl ----

  /** What one {@code sluice ctl} run returned and printed. */
  record CtlRun(int exit, String out, String err) {}

  /** Runs {@code sluice ctl args} in this JVM with {@code env} as its whole environment. */
  static CtlRun ctl(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CtlIo io =
        new CtlIo(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")),
            env,
            false);
    int exit = CtlMain.run(args, io, new DnsjavaVerifier());
    return new CtlRun(
        exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Override
  public void close() {
    runtime.close();
  }
}
