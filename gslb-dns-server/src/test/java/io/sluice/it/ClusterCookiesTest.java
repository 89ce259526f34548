package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.admin.cli.CtlMain;
import io.sluice.cluster.testing.EtcdCluster;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * DNS cookies across two whole nodes sharing a real etcd, over their UDP listeners and admin APIs,
 * with cookies required (so a server cookie a node does not accept gets BADCOOKIE): a cookie one
 * node made is valid on the other, and a rotation through one node's API reaches both, the old
 * cookies still valid as the previous secret's.
 */
class ClusterCookiesTest {
  private static final byte[] CLIENT = {1, 2, 3, 4, 5, 6, 7, 8};
  private static final String TOKEN = "cookie-test-admin-token";

  @TempDir Path dir;

  private LiveNode start(String node, EtcdCluster etcd) throws Exception {
    Path home = Files.createDirectories(dir.resolve(node));
    String yaml =
        AdminEndToEndTest.CONFIG
                .replace("stateDir: state\n", "stateDir: " + home.resolve("state") + "\n")
                .replace(
                    "dns: { listen: [127.0.0.1], port: 0, threads: 1 }",
                    "dns: { listen: [127.0.0.1], port: 0, threads: 1, cookies: { require: true } }")
                // One token for both nodes: the configuration they run is the cluster's, so a
                // node's own local token is not the one the other node bootstrapped with.
                .replace(
                    "admin: { listen: 127.0.0.1, port: 0 }",
                    "admin: { listen: 127.0.0.1, port: 0, tokens: [ { name: ada, role: admin,"
                        + " sha256: "
                        + TokenAuthenticator.hash(TOKEN)
                        + " } ] }")
            + "cluster:\n  node: "
            + node
            + "\n  etcd: { endpoints: ["
            + String.join(", ", etcd.endpoints())
            + "], timeout: 1s }\n";
    return LiveNode.start(home, yaml, TOKEN);
  }

  private static Message ask(LiveNode n, CookieOption cookie) throws IOException {
    Message q =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN));
    q.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(cookie)), Section.ADDITIONAL);
    return n.resolver(false).send(q);
  }

  private static CookieOption cookieOf(Message m) {
    List<EDNSOption> options = new ArrayList<>(m.getOPT().getOptions(EDNSOption.Code.COOKIE));
    assertEquals(1, options.size(), m.toString());
    return (CookieOption) options.get(0);
  }

  private static byte[] server(Message m) {
    return cookieOf(m).getServerCookie().orElseThrow();
  }

  /** Asks with {@code cookie}: NOERROR when the node accepts it, BADCOOKIE (23) when not. */
  private static int rcode(LiveNode n, byte[] cookie) throws IOException {
    return ask(n, new CookieOption(CLIENT, cookie)).getRcode();
  }

  @Test
  void aCookieOfOneNodeIsValidOnTheOtherAndARotationReachesBoth() throws Exception {
    try (EtcdCluster etcd = EtcdCluster.start(1)) {
      try (LiveNode a = start("a", etcd);
          LiveNode b = start("b", etcd)) {
        // Until b follows the cluster's secret it may still make cookies of its own file's.
        Message first = ask(a, new CookieOption(CLIENT));
        assertEquals(23, first.getRcode(), "no server cookie yet: BADCOOKIE with a fresh one");
        byte[] fromA = server(first);
        await("b accepts a's cookie", () -> rcode(b, fromA) == Rcode.NOERROR);
        // And a accepts b's.
        byte[] fromB = server(ask(b, new CookieOption(CLIENT)));
        assertEquals(Rcode.NOERROR, rcode(a, fromB));

        LiveNode.CtlRun rotated =
            LiveNode.ctl(
                Map.of("SLUICE_ADMIN_URL", b.adminUrl(), "SLUICE_TOKEN", b.token),
                "rotate-cookie-secret",
                "--yes");
        assertEquals(CtlMain.OK, rotated.exit(), rotated.out() + rotated.err());
        assertTrue(rotated.out().startsWith("cookie secret rotated on the cluster"), rotated.out());
        // a made fromA with the secret that is now the previous one: still valid, and answered
        // with a fresh cookie of the new secret once a has heard of the rotation.
        await(
            "a makes cookies of the new secret",
            () -> !Arrays.equals(fromA, server(ask(a, new CookieOption(CLIENT, fromA)))));
        Message renewed = ask(a, new CookieOption(CLIENT, fromA));
        assertEquals(Rcode.NOERROR, renewed.getRcode(), "the previous secret's cookie is valid");
        byte[] newFromA = server(renewed);
        assertEquals(Rcode.NOERROR, rcode(b, newFromA), "b accepts a's cookie of the new secret");
        assertEquals(Rcode.NOERROR, rcode(b, fromA), "b accepts the previous secret's too");
        byte[] newFromB = server(ask(b, new CookieOption(CLIENT)));
        assertEquals(Rcode.NOERROR, rcode(a, newFromB));
      }
    }
  }

  @Test
  void aSingleNodeRefusesTheRotateCommandNamingTheFileRotation() throws Exception {
    Path home = Files.createDirectories(dir.resolve("single"));
    String yaml =
        AdminEndToEndTest.CONFIG.replace(
            "stateDir: state\n", "stateDir: " + home.resolve("state") + "\n");
    try (LiveNode n = LiveNode.start(home, yaml)) {
      LiveNode.Reply r = n.post("/api/v1/dns/cookies/rotate", "{}");
      assertEquals(409, r.status(), r.body());
      assertEquals("not_clustered", r.json().path("error").asText());
      assertTrue(r.json().path("message").asText().contains("dns.cookies.secretFile"), r.body());
    }
  }

  private interface Check {
    boolean ok() throws Exception;
  }

  private static void await(String what, Check c) throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (!c.ok()) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within 30 s: " + what);
      }
      Thread.sleep(20);
    }
  }
}
