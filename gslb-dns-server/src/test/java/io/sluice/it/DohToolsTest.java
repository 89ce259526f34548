package io.sluice.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.dns.https.DohClient;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Message;
import org.xbill.DNS.Type;

/**
 * DoH and HTTPDNS with the clients users have: {@code curl} (HTTP/2 GET and POST, the JSON API) and
 * {@code kdig +https} (Knot's DoH client), each verifying the node's generated certificate. Without
 * the program the test is skipped with the reason, except under {@code CI=true}, where it fails so
 * that CI cannot skip it silently.
 */
class DohToolsTest {
  @TempDir static Path dir;
  private static LiveNode node;
  private static Path cert;
  private static String base;

  @BeforeAll
  static void start() throws Exception {
    node = LiveNode.start(dir, DohOverTheWireTest.config(1000));
    cert = dir.resolve("state/https.crt");
    base = "https://127.0.0.1:" + node.runtime.node().httpsPort();
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
    }
  }

  private static void need(String program, String debianPackage) {
    for (String d : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(d, program))) {
        return;
      }
    }
    String reason = program + " (Debian package '" + debianPackage + "') is not installed";
    if ("true".equals(System.getenv("CI"))) {
      fail(reason + "; CI=true, so this is a failure, not a skip");
    }
    System.err.println("SKIPPED DohToolsTest: " + reason);
    Assumptions.abort(reason);
  }

  private static String run(String... command) throws Exception {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      fail(String.join(" ", command) + " timed out");
    }
    assertEquals(0, p.exitValue(), () -> String.join(" ", command) + "\n" + out);
    return out;
  }

  @Test
  void curlGetsOverHttp2AndPosts() throws Exception {
    need("curl", "curl");
    Message q = LiveNode.queryMessage("geo.example.test.", Type.A, "10.1.0.0/24");
    Path out = dir.resolve("get.bin");
    String status =
        run(
            "curl",
            "-sS",
            "--http2",
            "--cacert",
            cert.toString(),
            "-o",
            out.toString(),
            "-w",
            "%{http_code} %{http_version}",
            base + "/dns-query?dns=" + DohClient.base64url(q.toWire()));
    assertEquals("200 2", status.strip());
    assertEquals(List.of("192.0.2.11"), LiveNode.addresses(new Message(Files.readAllBytes(out))));

    Path body = dir.resolve("query.bin");
    Files.write(body, LiveNode.queryMessage("www.example.test.", Type.A, null).toWire());
    Path posted = dir.resolve("post.bin");
    run(
        "curl",
        "-sS",
        "--http1.1",
        "--cacert",
        cert.toString(),
        "-o",
        posted.toString(),
        "-H",
        "content-type: application/dns-message",
        "--data-binary",
        "@" + body,
        base + "/dns-query");
    assertEquals(
        List.of("192.0.2.80"), LiveNode.addresses(new Message(Files.readAllBytes(posted))));
  }

  @Test
  void curlResolvesThroughHttpDns() throws Exception {
    need("curl", "curl");
    String json =
        run(
            "curl",
            "-sS",
            "--cacert",
            cert.toString(),
            base + "/resolve?name=geo.example.test&type=A");
    JsonNode j = LiveNode.JSON.readTree(json);
    assertEquals(0, j.get("Status").asInt());
    assertEquals("203.0.113.31", j.get("Answer").get(0).get("data").asText());
    String status =
        run(
            "curl",
            "-sS",
            "-o",
            "/dev/null",
            "-w",
            "%{http_code}",
            "--cacert",
            cert.toString(),
            base + "/resolve?name=geo.example.test&ip=10.1.0.1");
    assertEquals("403", status.strip());
  }

  @Test
  void kdigAsksOverHttpsWithPostAndGet() throws Exception {
    need("kdig", "knot-dnsutils");
    String port = Integer.toString(node.runtime.node().httpsPort());
    List<String> common =
        List.of(
            "kdig",
            "@127.0.0.1",
            "-p",
            port,
            "+tls-ca=" + cert,
            "+tls-hostname=localhost",
            "+short");
    List<String> post = new ArrayList<>(common);
    post.addAll(List.of("+https", "www.example.test", "A"));
    assertEquals("192.0.2.80", run(post.toArray(String[]::new)).strip());
    List<String> get = new ArrayList<>(common);
    get.addAll(List.of("+https-get", "geo.example.test", "A", "+subnet=10.1.0.0/24"));
    String answer = run(get.toArray(String[]::new)).strip();
    assertTrue(answer.endsWith("192.0.2.11"), answer);
  }
}
