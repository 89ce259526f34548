package io.sluice.server.app;

import java.io.IOException;
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
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.xbill.DNS.ClientSubnetOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * The training run behind the server's class-data-sharing archive: a whole {@code sluice run} of a
 * small configuration on loopback ports the kernel picks, asked over UDP, TCP and the admin API,
 * then stopped. Run with {@code -XX:ArchiveClassesAtExit}, the JVM writes the classes a start loads
 * into an archive the launcher maps at every later start (docs/dns.md, "Start-up time").
 */
public final class ArchiveTraining {
  private ArchiveTraining() {}

  public static void main(String[] args) throws Exception {
    Path dir = Files.createTempDirectory("sluice-training");
    int status = 1;
    try {
      status = train(dir);
    } catch (Exception e) {
      System.err.println("training run failed: " + e);
    } finally {
      delete(dir);
    }
    // The JVM writes the archive as it exits.
    System.exit(status);
  }

  private static int train(Path dir) throws Exception {
    Files.writeString(dir.resolve("sluice.yaml"), CONFIG, StandardCharsets.UTF_8);
    Files.writeString(dir.resolve("training.zone"), ZONE, StandardCharsets.UTF_8);
    Path state = dir.resolve("state");
    Path file = dir.resolve("sluice.yaml");
    // The command line, as `sluice run` parses it (its classes are the first a start loads).
    Main.commandLine()
        .parseArgs(
            "run", "--config", file.toString(), "--port", "0", "--state-dir", state.toString());
    // Then what `sluice run` does (Main), holding the process so that it is closed before the
    // directory is removed.
    CliOverrides overrides =
        new CliOverrides(0, List.of("127.0.0.1"), null, 0, state.toString(), null);
    NodeProcess process =
        NodeProcess.start(ConfigCheck.load(file, overrides, false), file, overrides, false);
    try {
      return exercise(process.runtime(), state);
    } finally {
      process.close();
    }
  }

  private static int exercise(SluiceRuntime node, Path state) throws Exception {
    InetSocketAddress server = new InetSocketAddress("127.0.0.1", node.node().port());
    ask(server, false);
    ask(server, true);
    String token = Files.readString(state.resolve("admin.token"), StandardCharsets.UTF_8).trim();
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    for (String path : new String[] {"/metrics", "/api/v1/status", "/api/v1/services"}) {
      HttpRequest get =
          HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.admin().port() + path))
              .header("Authorization", "Bearer " + token)
              .timeout(Duration.ofSeconds(10))
              .build();
      HttpResponse<String> response = http.send(get, HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() != 200) {
        throw new IOException("GET " + path + ": status " + response.statusCode());
      }
    }
    return 0;
  }

  /** Asks the node a few questions of each kind; any failure ends the training run. */
  private static void ask(InetSocketAddress server, boolean tcp) throws IOException {
    SimpleResolver r = new SimpleResolver(server);
    r.setTCP(tcp);
    r.setTimeout(Duration.ofSeconds(5));
    String[][] questions = {
      {"www.training.test.", "A"},
      {"www.training.test.", "AAAA"},
      {"geo.training.test.", "A"},
      {"app.training.test.", "AAAA"},
      {"h1.training.test.", "A"},
      {"missing.training.test.", "A"},
      {"training.test.", "SOA"}
    };
    for (String[] q : questions) {
      Message m =
          Message.newQuery(Record.newRecord(Name.fromString(q[0]), Type.value(q[1]), DClass.IN));
      m.addRecord(
          new OPTRecord(
              1232,
              0,
              0,
              0,
              List.of(new ClientSubnetOption(24, InetAddress.getByName("10.1.2.0")))),
          Section.ADDITIONAL);
      Message answer = r.send(m);
      int rcode = answer.getRcode();
      if (rcode != Rcode.NOERROR && rcode != Rcode.NXDOMAIN) {
        throw new IOException(q[0] + " " + q[1] + ": " + Rcode.string(rcode));
      }
    }
  }

  private static void delete(Path dir) {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      System.err.println("training run: could not remove " + dir + ": " + e.getMessage());
    }
  }

  // Loopback endpoints only: the probes' classes load, and no packet leaves the host (port 1 is
  // closed, so the checks fail at once).
  private static final String CONFIG =
      """
      # The archive training run's configuration (ArchiveTraining).
      dns:
        nsid: training
        rrl: { enabled: true, logOnly: true }
        cookies: { enabled: true }
      admin:
        listen: 127.0.0.1
      regions:
        eu-west: { location: { lat: 51.5, lon: -0.1 }, proximity: [us-east] }
        us-east: { location: { lat: 39.0, lon: -77.5 }, proximity: [eu-west] }
      topology:
        defaultRegion: us-east
        networks:
          - { cidr: 10.1.0.0/16, region: eu-west }
          - { cidr: "fd00:1::/32", region: eu-west }
      pools:
        eu-1:
          region: eu-west
          capacity: 100
          health:
            heartbeat: { type: tcp, port: 1, interval: 1s, timeout: 500ms }
          endpoints:
            - { name: a, address: 127.0.0.11 }
            - { name: b, address: "::1" }
        us-1:
          region: us-east
          endpoints:
            - { name: c, address: 127.0.0.21 }
            - { name: d, address: 127.0.0.22 }
      zones:
        - origin: training.test.
          soa: { mname: ns1.training.test., rname: hostmaster.training.test. }
          ns: [ns1.training.test.]
          file: training.zone
          records:
            - { name: ns1, type: A, data: 127.0.0.53 }
            - { name: www, type: A, data: [127.0.0.80, 127.0.0.81] }
            - { name: www, type: AAAA, data: "::1" }
          services:
            - name: app
              fallback: [127.0.0.21]
              pools: [eu-1, us-1]
            - name: geo
              fallback: [127.0.0.21]
              pools: [eu-1, us-1]
              chain: [healthy, geo, weighted]
      """;

  private static final String ZONE =
      """
      $TTL 300
      h1 IN A 127.0.1.1
      h2 IN A 127.0.1.2
      h3 IN AAAA ::1
      mail IN MX 10 h1
      txt IN TXT "training"
      alias IN CNAME h1
      """;
}
