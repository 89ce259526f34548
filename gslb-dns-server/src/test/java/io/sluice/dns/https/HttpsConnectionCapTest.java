package io.sluice.dns.https;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.server.app.SluiceNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.http.HttpClient;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code dns.https.maxConnections}: while that many connections are open a new one is closed before
 * its TLS handshake; once one closes, new connections are served again.
 */
class HttpsConnectionCapTest {
  @TempDir Path dir;

  @Test
  void newConnectionsAreClosedWhileTheCapIsReached() throws Exception {
    String yaml =
        """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          https: { listen: [127.0.0.1], port: 0, maxConnections: 1 }
        stateDir: state
        """
            + HttpsCertificateTest.ZONE;
    try (SluiceNode node =
        SluiceNode.start(
            ConfigLoader.parse(yaml, "test.yaml", dir),
            "test.yaml",
            AllEndpointsPlanner::new,
            GslbMetrics.NOOP)) {
      Path cert = dir.resolve("state/https.crt");
      try (Socket idle = new Socket(InetAddress.getLoopbackAddress(), node.httpsPort())) {
        // One event loop accepts in order: the held connection is admitted, the client's closed.
        assertThrows(
            IOException.class,
            () ->
                new DohClient(node.httpsPort(), cert, HttpClient.Version.HTTP_2)
                    .get("/resolve?name=www.example.test"));
      }
      // The held connection is gone; the server sees its close shortly.
      int status = 0;
      for (int attempt = 0; attempt < 50 && status == 0; attempt++) {
        try {
          status =
              new DohClient(node.httpsPort(), cert, HttpClient.Version.HTTP_2)
                  .get("/resolve?name=www.example.test")
                  .statusCode();
        } catch (IOException e) {
          Thread.sleep(100);
        }
      }
      assertEquals(200, status);
    }
  }
}
