package io.sluice.it;

import static io.sluice.it.ClusterBackends.BLUE;
import static io.sluice.it.ClusterBackends.WEB;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.sluice.it.LiveNode.Reply;
import io.sluice.it.SluiceCluster.Node;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The cluster's command test against etcd in a container, where a Docker engine is present (the
 * design's Testcontainers variant; the container is run with the {@code docker} command, so the
 * build needs no extra library). Without an engine it is skipped, saying why: the same scenario
 * runs against Debian's etcd in {@link ClusterCommandsTest}.
 */
class ClusterEtcdInContainerTest {
  /** The etcd release of Debian's etcd-server package line, as the project's container image. */
  static final String IMAGE = "gcr.io/etcd-development/etcd:v3.4.23";

  @TempDir Path dir;

  private static boolean dockerEngine() {
    String host = System.getenv("DOCKER_HOST");
    return (host != null && !host.isBlank()) || Files.exists(Path.of("/var/run/docker.sock"));
  }

  private static boolean dockerCommand() {
    for (String p : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
      if (Files.isExecutable(Path.of(p, "docker"))) {
        return true;
      }
    }
    return false;
  }

  private static String docker(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>(List.of("docker"));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
    if (!p.waitFor(120, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IOException("docker " + String.join(" ", args) + " failed: " + out);
    }
    return out;
  }

  @Test
  void aCommandThroughOneNodeIsAnsweredByAllThreeWithEtcdInAContainer() throws Exception {
    String missing =
        !dockerEngine()
            ? "no Docker engine here (no /var/run/docker.sock, DOCKER_HOST unset)"
            : !dockerCommand() ? "a Docker engine but no docker command on PATH" : null;
    if (missing != null) {
      // In the build log too, not only in the report: a skip must be seen.
      System.out.println(
          "SKIPPED etcd-in-a-container cluster test: "
              + missing
              + "; the same scenario runs against Debian's etcd in ClusterCommandsTest");
    }
    assumeTrue(missing == null, () -> "SKIPPED: " + missing);
    String id =
        docker(
            "run",
            "-d",
            "--rm",
            "-p",
            "127.0.0.1::2379",
            IMAGE,
            "etcd",
            "--listen-client-urls",
            "http://0.0.0.0:2379",
            "--advertise-client-urls",
            "http://127.0.0.1:2379");
    try {
      String mapped = docker("port", id, "2379/tcp").lines().findFirst().orElseThrow();
      String endpoint = "http://127.0.0.1:" + mapped.substring(mapped.lastIndexOf(':') + 1);
      List<String> subnets = SluiceCluster.subnets(ClusterCommandsTest.CLIENTS);
      try (ClusterBackends b = new ClusterBackends();
          SluiceCluster c = SluiceCluster.start(dir, List.of(endpoint), 3, b.body())) {
        Node ns1 = c.node(0);
        long t = System.nanoTime();
        Reply weights =
            ns1.put(
                "/api/v1/services/web.example.test/weights",
                "{\"weights\":{\"blue\":1,\"green\":0},\"reason\":\"container\"}");
        assertEquals(200, weights.status(), weights.body());
        ClusterCommandsTest.awaitEverywhere(
            c,
            t,
            "weight change through ns1 (etcd in a container)",
            ClusterCommandsTest.witnesses(subnets),
            List.of(BLUE));
        ClusterCommandsTest.assertEveryClient(c, subnets, List.of(BLUE));
        assertTrue(c.differences(WEB, subnets).isEmpty());
      }
    } finally {
      docker("rm", "-f", id);
    }
  }
}
