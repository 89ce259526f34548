package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.sluice.admin.auth.TokenAuthenticator;
import io.sluice.core.testing.LoopbackPorts;
import java.io.BufferedWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.Type;

/**
 * A real node in a child JVM with a small heap reloads a zone too big for it: the reload is
 * rejected like any invalid one (the log says why, the reload metrics count it), the old data keeps
 * being answered, and the next reload, through the admin API, applies.
 */
class ReloadOutOfMemoryTest {
  private static final String ADMIN = "admin-token-for-the-memory-test";
  private static final Duration WAIT = Duration.ofSeconds(60);

  /** Far more than a 64 MB heap holds compiled (about 180 bytes each while compiling). */
  private static final int RECORDS = 600_000;

  @TempDir Path dir;

  private String config(String www, String file) {
    return """
        dns: { listen: [127.0.0.1], threads: 1 }
        admin:
          listen: 127.0.0.1
          tokens:
            - { name: ops, role: admin, sha256: %s }
        stateDir: state
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            file: %s
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: %s }
        """
        .formatted(TokenAuthenticator.hash(ADMIN), file, www);
  }

  @Test
  void aReloadTooBigForTheHeapIsRejectedAndTheNextReloadApplies() throws Exception {
    Files.writeString(dir.resolve("small.zone"), "$TTL 300\nh0 IN A 10.0.0.0\n");
    try (BufferedWriter w = Files.newBufferedWriter(dir.resolve("big.zone"))) {
      w.write("$TTL 300\n");
      for (int i = 0; i < RECORDS; i++) {
        w.write("h" + i + " IN A 10." + (i >> 16 & 255) + "." + (i >> 8 & 255) + "." + (i & 255));
        w.write('\n');
      }
    }
    Path yaml = dir.resolve("sluice.yaml");
    Files.writeString(yaml, config("192.0.2.1", "small.zone"));
    int dnsPort = LoopbackPorts.reserve();
    int adminPort = LoopbackPorts.reserve();
    Path log = dir.resolve("node.log");
    Process p =
        new ProcessBuilder(
                SluiceChild.command(
                    64,
                    "run",
                    "--config",
                    yaml.toString(),
                    "--port",
                    Integer.toString(dnsPort),
                    "--admin-port",
                    Integer.toString(adminPort)))
            .redirectErrorStream(true)
            .redirectOutput(log.toFile())
            .start();
    try {
      awaitLog(p, log, "serving 1 zone(s)");
      SimpleResolver dns = new SimpleResolver(new InetSocketAddress("127.0.0.1", dnsPort));
      dns.setTimeout(Duration.ofSeconds(5));
      assertEquals("192.0.2.1", www(dns));

      Files.writeString(yaml, config("192.0.2.2", "big.zone"));
      if (Files.readString(log).contains("SIGHUP reload is NOT active")) {
        // The build runs with SIGHUP ignored (under nohup), and the child inherits that: the
        // same reload through the API, which the rejection reaches by the same path.
        HttpResponse<String> big = admin(adminPort, "POST", "/api/v1/config/reload");
        assertNotEquals(200, big.statusCode(), big.body());
      } else {
        new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).start().waitFor();
      }
      String rejected = awaitLog(p, log, "not enough memory to build the configuration");
      assertTrue(rejected.contains("rejected, still serving the previous config"), rejected);
      assertFalse(rejected.contains("Exception in thread"), rejected);
      assertEquals("192.0.2.1", www(dns), "the previous configuration keeps serving");
      String metrics = admin(adminPort, "GET", "/metrics").body();
      assertTrue(metrics.contains("sluice_config_reloads_total{result=\"rejected\"} 1.0"), metrics);
      assertTrue(metrics.contains("sluice_config_last_reload_successful 0.0"), metrics);

      Files.writeString(yaml, config("192.0.2.3", "small.zone"));
      HttpResponse<String> reload = admin(adminPort, "POST", "/api/v1/config/reload");
      assertEquals(200, reload.statusCode(), reload.body());
      assertEquals("192.0.2.3", www(dns), "a later reload applies");
      assertTrue(p.isAlive(), Files.readString(log));
    } finally {
      p.destroyForcibly();
      p.waitFor(10, TimeUnit.SECONDS);
    }
  }

  private static String www(SimpleResolver dns) throws Exception {
    Message answer =
        dns.send(
            Message.newQuery(
                Record.newRecord(Name.fromString("www.example.test."), Type.A, DClass.IN)));
    List<Record> records = answer.getSection(Section.ANSWER);
    return records.isEmpty() ? "none" : records.get(0).rdataToString();
  }

  private static HttpResponse<String> admin(int port, String method, String path) throws Exception {
    HttpRequest request =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
            .header("Authorization", "Bearer " + ADMIN)
            .timeout(WAIT)
            .method(method, HttpRequest.BodyPublishers.noBody())
            .build();
    return HttpClient.newHttpClient().send(request, HttpResponse.BodyHandlers.ofString());
  }

  /** The log once it contains {@code text}. */
  private static String awaitLog(Process p, Path log, String text) throws Exception {
    long deadline = System.nanoTime() + WAIT.toNanos();
    while (System.nanoTime() < deadline) {
      String all = Files.readString(log);
      if (all.contains(text)) {
        return all;
      }
      if (!p.isAlive()) {
        fail("the node exited (" + p.exitValue() + ") before '" + text + "':\n" + all);
      }
      Thread.sleep(50);
    }
    fail("no '" + text + "' in the log within " + WAIT + ":\n" + Files.readString(log));
    return null;
  }
}
