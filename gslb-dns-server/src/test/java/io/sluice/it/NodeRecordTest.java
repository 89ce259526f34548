package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.cli.CtlMain;
import io.sluice.admin.cli.NodeRecord;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node started on ephemeral ports records its real admin URL and DNS address beside its local
 * token, and {@code sluice ctl} given only the state directory reaches that node (not the default
 * port 8053), verifies over its real DNS port, and refuses once the node has stopped.
 */
class NodeRecordTest {
  private static final String CONFIG =
      """
      dns: { listen: [127.0.0.1], port: 0, threads: 1 }
      admin: { listen: 127.0.0.1, port: 0 }
      stateDir: state
      regions: { eu: {} }
      pools:
        p-eu: { region: eu, endpoints: [ { name: a, address: 192.0.2.11 } ] }
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: h.example.test. }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
          services:
            - { name: app, pools: [{ pool: p-eu }], chain: [healthy] }
      """;

  @TempDir Path dir;

  @Test
  void ctlReachesTheNodeThatOwnsTheStateDirectory() throws Exception {
    Path state = dir.resolve("state");
    Map<String, String> env = Map.of("SLUICE_STATE_DIR", state.toString());
    try (LiveNode node = LiveNode.start(dir, CONFIG)) {
      Path record = state.resolve(NodeRecord.FILE);
      String text = Files.readString(record);
      assertTrue(text.contains("url=" + node.adminUrl() + "\n"), text);
      assertTrue(text.contains("dns=127.0.0.1:" + node.dnsPort() + "\n"), text);
      assertEquals(
          "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(record)));

      LiveNode.CtlRun status = LiveNode.ctl(env, "status");
      assertEquals(CtlMain.OK, status.exit(), status.out() + status.err());
      assertTrue(status.out().contains("app.example.test."), status.out());
      // verify asks the node's real DNS port, also taken from the record.
      LiveNode.CtlRun verify =
          LiveNode.ctl(env, "verify", "app.example.test.", "--subnet", "10.1.0.0/24");
      assertEquals(CtlMain.OK, verify.exit(), verify.out() + verify.err());
      assertTrue(verify.out().contains("127.0.0.1:" + node.dnsPort()), verify.out());
    }
    assertFalse(Files.exists(state.resolve(NodeRecord.FILE)), "removed on a clean stop");
    LiveNode.CtlRun stopped = LiveNode.ctl(env, "status");
    assertEquals(CtlMain.USAGE, stopped.exit(), stopped.out() + stopped.err());
    assertTrue(stopped.err().contains("no running node recorded in"), stopped.err());
  }

  @Test
  void aRecordLeftByAKilledNodeIsRefused() throws Exception {
    Path state = dir.resolve("state");
    Files.createDirectories(state);
    Files.writeString(state.resolve("admin.token"), "some-token\n");
    // A pid no process has: the record a kill -9 leaves behind.
    Files.writeString(
        state.resolve(NodeRecord.FILE), "pid=2147483646\nurl=http://127.0.0.1:1\ndns=x:1\n");
    LiveNode.CtlRun r = LiveNode.ctl(Map.of(), "--state-dir", state.toString(), "status");
    assertEquals(CtlMain.USAGE, r.exit(), r.out() + r.err());
    assertTrue(r.err().contains("(pid 2147483646) is not running"), r.err());
  }
}
