package io.sluice.admin.testing;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.rest.AdminServer;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ConfigReloader;
import io.sluice.core.health.EndpointHealth;
import io.sluice.core.health.HealthView;
import io.sluice.core.health.PoolLoadFeed;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.health.Verdict;
import io.sluice.core.history.PastStates;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.testing.ManualTicker;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A running {@link AdminServer} on an ephemeral loopback port over a small two-pool configuration,
 * with in-memory control plane, reloader, explainer and probe sink, and an HTTP client.
 */
public final class AdminFixture implements AutoCloseable {
  public static final String VIEWER = "viewer-secret-1";
  public static final String OPERATOR = "operator-secret-2";
  public static final String ADMIN = "admin-secret-3";
  public static final String PROBE = "probe-secret-4";
  public static final String SERVICE = "app.example.com.";

  public final SnapshotStore store;
  public final RecordingControlPlane control;
  public final FakeReloader reloader;
  public final List<ProbeReport> probeReports = new CopyOnWriteArrayList<>();
  public final PrometheusMetrics metrics = new PrometheusMetrics();
  public final ManualTicker ticker = new ManualTicker();
  public final AdminServer server;

  /** Every audited load push, as "actor action details". */
  public final List<String> loadAudit = new CopyOnWriteArrayList<>();

  /** The load feed behind {@code PUT /api/v1/pools/{pool}/load} (pushes only: no pulls run). */
  public final PoolLoadFeed loads;

  /** Where the configuration history of the fixture lives. */
  public final Path configDir = java.nio.file.Files.createTempDirectory("sluice-config-");

  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final ObjectMapper json = new ObjectMapper();

  /**
   * The example configuration, with {@code adminExtra} appended to its admin section; a key given
   * there replaces the default (a key may appear only once).
   */
  public static String yaml(String adminExtra) {
    String limit = adminExtra.contains("authFailuresPerMinute:") ? "" : "authFailuresPerMinute: 3";
    return """
        admin:
          listen: 127.0.0.1
          port: 0
          %s
          maxBodyBytes: 4096
          tokens:
            - { name: vera, role: viewer, sha256: %s }
            - { name: otto, role: operator, sha256: %s }
            - { name: ada, role: admin, sha256: %s }
            - { name: agent-1, role: probe, sha256: %s }
        %s
        regions:
          eu-west: { proximity: [us-east] }
          us-east: { proximity: [eu-west] }
        topology:
          defaultRegion: us-east
          networks:
            - { cidr: 10.1.0.0/16, region: eu-west }
            - { cidr: 10.2.0.0/16, region: us-east }
        pools:
          eu-west-1:
            region: eu-west
            endpoints:
              - { name: lon-a, address: 192.0.2.11 }
              - { name: lon-b, address: 192.0.2.12 }
          us-east-1:
            region: us-east
            endpoints:
              - { name: iad-a, address: 198.51.100.21 }
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com., serial: 1 }
            ns: [ns1.example.com.]
            services:
              - name: app
                ttl: 60
                pools: [eu-west-1, us-east-1]
                shadow: { chain: [healthy, weighted] }
        """
        .formatted(
            limit,
            TokenAuthenticator.hash(VIEWER),
            TokenAuthenticator.hash(OPERATOR),
            TokenAuthenticator.hash(ADMIN),
            TokenAuthenticator.hash(PROBE),
            adminExtra);
  }

  public static SluiceConfig config(String adminExtra) {
    try {
      return ConfigLoader.parse(yaml(adminExtra), "test.yaml", Path.of("."));
    } catch (ConfigException e) {
      throw new IllegalStateException(e.getMessage(), e);
    }
  }

  public AdminFixture() throws Exception {
    this("");
  }

  public AdminFixture(String adminExtra) throws Exception {
    SluiceConfig config = config(adminExtra);
    Snapshot initial =
        Snapshot.initial(config)
            .withHealth(
                HealthView.of(
                    Map.of(
                        "eu-west-1/lon-a",
                        new EndpointHealth(
                            Verdict.UP, 1_800_000_000_000L, "heartbeat ok", false, 2.5, 9.0, 0),
                        "eu-west-1/lon-b",
                        EndpointHealth.of(Verdict.DOWN, 1_800_000_100_000L, "connect refused"),
                        "us-east-1/iad-a",
                        new EndpointHealth(
                            Verdict.UP, 1_800_000_000_000L, "heartbeat ok", false, 80, 120, 0.01)),
                    7));
    store = new SnapshotStore(initial);
    control = new RecordingControlPlane(store);
    reloader = new FakeReloader(store);
    loads =
        PoolLoadFeed.create(
            store,
            (actor, action, service, reason, before, after, details) -> {
              loadAudit.add(actor.name() + " " + action + " " + details);
              return loadAudit.size();
            },
            (url, query, timeout) -> {
              throw new IllegalStateException("no pulls in this fixture");
            },
            ticker);
    server =
        new AdminServer(
                config.admin(),
                store,
                control,
                reloader,
                new RegionExplainer(),
                probeReports::add,
                metrics,
                ticker)
            .withLoadFeed(loads)
            .withConfigCommands(new RecordingConfigCommands(configDir, yaml(adminExtra)))
            // The history holds one state: the one served now.
            .withObservability(
                ShadowReporter.NONE,
                millis ->
                    Optional.of(
                        new PastStates.PastState(0, store.current().version(), 1, store.current())))
            // The route's answer as bytes; the archive itself is BackupRestoreTest's.
            .withStateBackups(
                secrets ->
                    ("backup secrets=" + secrets).getBytes(java.nio.charset.StandardCharsets.UTF_8))
            .start();
    server.ready(true);
  }

  /**
   * A started server for {@code config} with a recording control plane and no reloader, explainer
   * or probe sink: for tests of the listener itself (TLS, connections).
   */
  public static AdminServer listenerOnly(SluiceConfig config, PrometheusMetrics metrics)
      throws InterruptedException {
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    return new AdminServer(
            config.admin(),
            store,
            new RecordingControlPlane(store),
            actor -> {
              throw new UnsupportedOperationException();
            },
            (service, family, client) -> {
              throw new UnsupportedOperationException();
            },
            report -> {},
            metrics)
        .start();
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + server.port();
  }

  public HttpResponse<String> send(String method, String path, String token, String body)
      throws IOException, InterruptedException {
    return send(method, path, token, body, Map.of());
  }

  public HttpResponse<String> send(
      String method, String path, String token, String body, Map<String, String> headers)
      throws IOException, InterruptedException {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(baseUrl() + path))
            .timeout(Duration.ofSeconds(10))
            .method(
                method,
                body == null
                    ? HttpRequest.BodyPublishers.noBody()
                    : HttpRequest.BodyPublishers.ofString(body));
    if (token != null) {
      b.header("Authorization", "Bearer " + token);
    }
    if (body != null) {
      b.header("Content-Type", "application/json");
    }
    headers.forEach(b::header);
    return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  public HttpResponse<String> get(String path, String token)
      throws IOException, InterruptedException {
    return send("GET", path, token, null);
  }

  public HttpResponse<String> post(String path, String token, String body)
      throws IOException, InterruptedException {
    return send("POST", path, token, body);
  }

  public JsonNode json(HttpResponse<String> r) throws IOException {
    return json.readTree(r.body());
  }

  @Override
  public void close() {
    server.close();
    metrics.close();
    try (var files = java.nio.file.Files.walk(configDir)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.deleteIfExists(p);
      }
    } catch (IOException e) {
      // a temporary directory left behind
    }
  }

  /** A reloader that succeeds, or fails with the problems it was given. */
  public static final class FakeReloader implements ConfigReloader {
    private final SnapshotStore store;
    private volatile List<ConfigProblem> problems;
    private volatile int calls;
    private volatile Duration takes = Duration.ZERO;

    FakeReloader(SnapshotStore store) {
      this.store = store;
    }

    public void failWith(List<ConfigProblem> p) {
      problems = p;
    }

    public int calls() {
      return calls;
    }

    /** Makes every reload take {@code d}, as loading a very large configuration does. */
    public void takes(Duration d) {
      takes = d;
    }

    @Override
    public CommandResult reload(io.sluice.core.control.Actor actor) throws ConfigException {
      calls++;
      try {
        Thread.sleep(takes.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted", e);
      }
      if (problems != null) {
        throw new ConfigException(problems);
      }
      Snapshot s = store.update(x -> x.withConfig(x.config()));
      return new CommandResult(s.version(), true, "reloaded by " + actor.name());
    }
  }

  /** Explains by the network map: 10.1/16 goes to eu-west-1, everything else to us-east-1. */
  public static final class RegionExplainer implements DecisionExplainer {
    @Override
    public Explanation explain(
        Snapshot snapshot, String service, AddressFamily family, ClientInfo client) {
      return explain(service, family, client);
    }

    @Override
    public Explanation explain(String service, AddressFamily family, ClientInfo client) {
      boolean eu =
          client.address().length == 4 && client.address()[0] == 10 && client.address()[1] == 1;
      String pool = eu ? "eu-west-1" : "us-east-1";
      byte[] addr = eu ? new byte[] {(byte) 192, 0, 2, 11} : new byte[] {(byte) 198, 51, 100, 21};
      return new Explanation(
          service,
          client.toString(),
          eu ? "eu-west" : "us-east",
          "network map",
          List.of(
              new Step(
                  "healthy",
                  List.of("eu-west-1", "us-east-1"),
                  List.of("eu-west-1", "us-east-1"),
                  "all up"),
              new Step("geo", List.of("eu-west-1", "us-east-1"), List.of(pool), "nearest region")),
          Decision.answer(List.of(addr), 60, eu ? 16 : 0, List.of(pool)));
    }
  }
}
