package io.sluice.cluster.testing;

import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.core.testing.LoopbackPorts;
import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A real etcd cluster of one or more members on loopback ports, each a child process of the test
 * (Debian's {@code etcd-server}). Members can be stopped (SIGKILL, like a crash) and started again
 * on the same data directory and ports. Without the {@code etcd} binary a test is skipped with the
 * reason, except under {@code CI=true}, where it fails so that CI cannot skip it silently.
 */
public final class EtcdCluster implements AutoCloseable {
  private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

  private final Path dir;
  private final List<Member> members = new ArrayList<>();
  private final String initialCluster;

  /** One member: its ports, data directory and process while it runs. */
  public static final class Member {
    final String name;
    final int clientPort;
    final int peerPort;
    final Path dataDir;
    final Path logFile;
    Process process;

    Member(String name, int clientPort, int peerPort, Path dataDir, Path logFile) {
      this.name = name;
      this.clientPort = clientPort;
      this.peerPort = peerPort;
      this.dataDir = dataDir;
      this.logFile = logFile;
    }

    /** The client URL of this member. */
    public String endpoint() {
      return "http://127.0.0.1:" + clientPort;
    }

    /** Whether the member's process is alive. */
    public boolean running() {
      return process != null && process.isAlive();
    }
  }

  private EtcdCluster(Path dir, int size) throws IOException {
    this.dir = dir;
    for (int i = 0; i < size; i++) {
      String name = "m" + i;
      members.add(
          new Member(
              name,
              LoopbackPorts.reserve(),
              LoopbackPorts.reserve(),
              dir.resolve(name + ".data"),
              dir.resolve(name + ".log")));
    }
    this.initialCluster =
        members.stream()
            .map(m -> m.name + "=http://127.0.0.1:" + m.peerPort)
            .collect(Collectors.joining(","));
  }

  /**
   * Starts {@code size} members (1, 3 or 5) and waits until every one accepts client connections.
   * Skips the calling test with the reason when {@code etcd} is not installed (fails under
   * CI=true).
   */
  public static EtcdCluster start(int size) throws IOException, InterruptedException {
    requireEtcd();
    Path dir = Files.createTempDirectory("sluice-etcd");
    EtcdCluster c = new EtcdCluster(dir, size);
    try {
      for (Member m : c.members) {
        c.launch(m, "new");
      }
      for (Member m : c.members) {
        c.awaitListening(m);
      }
      c.awaitHealthy();
      return c;
    } catch (IOException | RuntimeException | InterruptedException | Error e) {
      c.close();
      throw e;
    }
  }

  /** Skips (or, under CI=true, fails) the calling test when the etcd binary is missing. */
  public static void requireEtcd() {
    String missing = etcdBinary() == null ? "etcd is not installed (Debian: etcd-server)" : null;
    if (missing != null && "true".equals(System.getenv("CI"))) {
      fail(missing + "; CI=true, so this is a failure, not a skip");
    }
    Assumptions.assumeTrue(missing == null, () -> missing);
  }

  private static String etcdBinary() {
    for (String p : System.getenv().getOrDefault("PATH", "/usr/bin").split(File.pathSeparator)) {
      Path candidate = Path.of(p, "etcd");
      if (Files.isExecutable(candidate)) {
        return candidate.toString();
      }
    }
    return null;
  }

  private void launch(Member m, String state) throws IOException {
    List<String> cmd =
        List.of(
            etcdBinary(),
            "--name",
            m.name,
            "--data-dir",
            m.dataDir.toString(),
            "--listen-client-urls",
            m.endpoint(),
            "--advertise-client-urls",
            m.endpoint(),
            "--listen-peer-urls",
            "http://127.0.0.1:" + m.peerPort,
            "--initial-advertise-peer-urls",
            "http://127.0.0.1:" + m.peerPort,
            "--initial-cluster",
            initialCluster,
            "--initial-cluster-state",
            state,
            "--initial-cluster-token",
            dir.getFileName().toString(),
            // etcd's default timings: shorter ones make leaders flap on a loaded 2-core machine.
            "--heartbeat-interval",
            "100",
            "--election-timeout",
            "1000");
    m.process =
        new ProcessBuilder(cmd)
            .redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.appendTo(m.logFile.toFile()))
            .start();
  }

  private void awaitListening(Member m) throws InterruptedException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!m.process.isAlive()) {
        throw new IllegalStateException("etcd member " + m.name + " exited: " + tail(m));
      }
      try (Socket s = new Socket("127.0.0.1", m.clientPort)) {
        return;
      } catch (IOException e) {
        Thread.sleep(50);
      }
    }
    throw new IllegalStateException("etcd member " + m.name + " did not listen: " + tail(m));
  }

  /**
   * Waits until every running member reports itself healthy (it has a leader and serves requests),
   * so a test's first write does not meet the initial election.
   */
  public void awaitHealthy() throws InterruptedException {
    HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    for (Member m : members) {
      while (m.running()) {
        try {
          HttpResponse<String> r =
              http.send(
                  HttpRequest.newBuilder(URI.create(m.endpoint() + "/health"))
                      .timeout(Duration.ofSeconds(5))
                      .build(),
                  HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200 && r.body().contains("\"true\"")) {
            break;
          }
        } catch (IOException e) {
          // Not answering yet.
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("etcd member " + m.name + " is not healthy: " + tail(m));
        }
        Thread.sleep(100);
      }
    }
  }

  private static String tail(Member m) {
    try {
      List<String> lines = Files.readAllLines(m.logFile);
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
    } catch (IOException e) {
      return "(no log: " + e + ")";
    }
  }

  /** The members, in order. */
  public List<Member> members() {
    return List.copyOf(members);
  }

  /** Every member's client URL, for a client's endpoint list. */
  public List<String> endpoints() {
    return members.stream().map(Member::endpoint).toList();
  }

  /** Kills member {@code i} with SIGKILL, as a crash would, and waits for it to exit. */
  public void kill(int i) throws InterruptedException {
    Member m = members.get(i);
    if (m.process != null) {
      m.process.destroyForcibly();
      m.process.waitFor(10, TimeUnit.SECONDS);
    }
  }

  /** Starts member {@code i} again on its data directory and ports, and waits until it listens. */
  public void restart(int i) throws IOException, InterruptedException {
    Member m = members.get(i);
    if (m.running()) {
      return;
    }
    launch(m, "existing");
    awaitListening(m);
    awaitHealthy();
  }

  @Override
  public void close() {
    for (Member m : members) {
      if (m.process != null) {
        m.process.destroyForcibly();
        try {
          m.process.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
    }
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
