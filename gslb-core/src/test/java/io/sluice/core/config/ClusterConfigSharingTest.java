package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code cluster.config}: shared versions by default, each node's own file when {@code local}. */
class ClusterConfigSharingTest {
  private static String yaml(String config) {
    return """
        cluster:
          node: n1
          etcd: { endpoints: ["http://127.0.0.1:2379"] }
        %s
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
        """
        .formatted(config);
  }

  @Test
  void sharedByDefaultLocalOnRequestAndNothingElse() throws Exception {
    assertTrue(ConfigLoader.parse(yaml(""), "a.yaml", Path.of(".")).cluster().sharedConfig());
    assertFalse(
        ConfigLoader.parse(yaml("  config: local"), "a.yaml", Path.of("."))
            .cluster()
            .sharedConfig());
    ConfigLoader.Parsed bad =
        ConfigLoader.read(yaml("  config: everywhere"), "a.yaml", Path.of("."));
    assertEquals(
        List.of("cluster.config: must be one of shared, local, was \"everywhere\""),
        bad.problems().stream().map(p -> p.path() + ": " + p.message()).toList());
  }
}
