package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.dns.dnssec.keys.KeyFiles;
import io.sluice.dns.dnssec.keys.SigningKey;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code sluice keys generate}: BIND key files where asked, or where the zone's config says. */
class KeysCommandTest {
  @TempDir Path dir;

  private record Run(int status, String out, String err) {}

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli =
        new CommandLine(new Main()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err));
    int status = cli.execute(args);
    return new Run(status, out.toString(), err.toString());
  }

  @Test
  void writesAnActiveKeyWithAnOwnerOnlyPrivateFile() throws Exception {
    Run r =
        run(
            "keys",
            "generate",
            "example.com",
            "--zsk",
            "--algorithm",
            "ED25519",
            "--directory",
            dir.toString());
    assertEquals(0, r.status(), r.err());
    List<String> lines = r.out().lines().toList();
    assertEquals(1, lines.size(), "a ZSK has no DS: " + lines);
    Path base = Path.of(lines.get(0));
    assertTrue(
        base.getFileName().toString().matches("Kexample\\.com\\.\\+015\\+\\d{5}"), base.toString());
    assertEquals(
        "rw-------",
        PosixFilePermissions.toString(Files.getPosixFilePermissions(Path.of(base + ".private"))));
    SigningKey k = KeyFiles.read(Path.of(base + ".key"));
    assertEquals(256, k.dnskey().getFlags());
    assertTrue(k.timing().active(Instant.now()));

    Run ksk = run("keys", "generate", "example.com", "--ksk", "--directory", dir.toString());
    assertEquals(0, ksk.status(), ksk.err());
    assertTrue(ksk.out().lines().toList().get(1).startsWith("example.com. 3600 IN DS "), ksk.out());
  }

  @Test
  void theConfigGivesTheZonesDirectoryAndAlgorithm() throws Exception {
    Path config = dir.resolve("sluice.yaml");
    Files.writeString(
        config,
        """
        stateDir: state
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            dnssec: { algorithm: ED25519 }
          - origin: plain.test.
            soa: { mname: ns1.plain.test., rname: h.plain.test. }
            ns: [ns1.plain.test.]
        """);
    Run r = run("keys", "generate", "example.test", "--config", config.toString());
    assertEquals(0, r.status(), r.err());
    String base = r.out().lines().findFirst().orElseThrow();
    assertTrue(
        base.startsWith(dir.resolve("state/keys/example.test/Kexample.test.+015+").toString()),
        base);
    Run unsigned = run("keys", "generate", "plain.test", "--config", config.toString());
    assertEquals(2, unsigned.status());
    assertTrue(unsigned.err().contains("zone plain.test. is not signed"), unsigned.err());
    assertEquals(2, run("keys", "generate", "exa mple..com").status());
  }
}
