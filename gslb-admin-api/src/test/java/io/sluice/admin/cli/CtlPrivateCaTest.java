package io.sluice.admin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.metrics.PrometheusMetrics;
import io.sluice.admin.rest.AdminServer;
import io.sluice.admin.testing.AdminFixture;
import io.sluice.admin.testing.RecordingControlPlane;
import io.sluice.admin.testing.TestCertificate;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice ctl} against a real TLS admin listener whose certificate a private CA signed: it
 * fails with a pointer to {@code --ca-file} until the CA is given by flag, environment or config
 * file key, and never needs JVM system properties.
 */
class CtlPrivateCaTest {
  @TempDir Path dir;

  private record Run(int code, String out, String err) {}

  private static Run run(Map<String, String> env, String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    CtlIo io =
        new CtlIo(
            new PrintStream(out, true, StandardCharsets.UTF_8),
            new PrintStream(err, true, StandardCharsets.UTF_8),
            new BufferedReader(new StringReader("")),
            env,
            false);
    int code =
        CtlMain.run(
            args,
            io,
            (server, port, name, type, subnet) -> {
              throw new UnsupportedOperationException();
            });
    return new Run(
        code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
  }

  @Test
  void ctlTrustsAPrivateCaFromFlagEnvironmentOrConfigFile() throws Exception {
    TestCertificate ca = TestCertificate.create(dir);
    SluiceConfig config = AdminFixture.config(ca.adminTls());
    SnapshotStore store = new SnapshotStore(Snapshot.initial(config));
    try (PrometheusMetrics metrics = new PrometheusMetrics();
        AdminServer server =
            new AdminServer(
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
                .start()) {
      Map<String, String> env = new HashMap<>();
      env.put("SLUICE_ADMIN_URL", "https://127.0.0.1:" + server.port());
      env.put("SLUICE_TOKEN", AdminFixture.VIEWER);

      Run untrusted = run(env, "status", "--json");
      assertEquals(CtlMain.FAILED, untrusted.code(), untrusted.err());
      assertTrue(
          untrusted.err().contains("TLS handshake with https://127.0.0.1:"), untrusted.err());
      assertTrue(untrusted.err().contains("--ca-file"), untrusted.err());

      Run flag = run(env, "status", "--json", "--ca-file", ca.certFile().toString());
      assertEquals(0, flag.code(), flag.err());
      assertTrue(flag.out().contains("app.example.com."), flag.out());

      Path conf = dir.resolve("ctl.properties");
      Files.writeString(conf, "caFile=admin.crt\n");
      Run fromConfig = run(env, "status", "--json", "--config", conf.toString());
      assertEquals(
          0, fromConfig.code(), "caFile= is relative to the config file: " + fromConfig.err());

      Map<String, String> withEnv = new HashMap<>(env);
      withEnv.put("SLUICE_CA_FILE", ca.certFile().toString());
      assertEquals(0, run(withEnv, "status", "--json").code());

      Path notPem = Files.writeString(dir.resolve("bad.crt"), "not a certificate\n");
      Run bad = run(env, "status", "--ca-file", notPem.toString());
      assertEquals(CtlMain.USAGE, bad.code());
      assertTrue(bad.err().contains("CA file " + notPem), bad.err());
    }
  }
}
