package io.sluice.dns.dnssec.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.dnssec.KeyState;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSSEC;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;

class KeyFilesTest {
  static final Name ZONE = Name.fromConstantString("example.com.");
  static final Path BIND = Path.of("src/test/resources/dnssec/bind");
  static final Path LDNS = Path.of("src/test/resources/dnssec/ldns");

  /** Signs an A RRset with {@code key} and checks the signature with the key's own DNSKEY. */
  static void signsVerifiably(SigningKey key) throws Exception {
    RRset rrset =
        new RRset(
            new ARecord(
                new Name("www", key.dnskey().getName()),
                DClass.IN,
                300,
                InetAddress.getByName("192.0.2.1")));
    Instant now = Instant.parse("2026-11-30T12:00:00Z");
    RRSIGRecord sig =
        DNSSEC.sign(rrset, key.dnskey(), key.privateKey(), now, now.plus(Duration.ofDays(14)));
    assertEquals(key.tag(), sig.getFootprint());
    DNSSEC.verify(rrset, sig, key.dnskey(), now.plusSeconds(60));
  }

  @Test
  void readsDnssecKeygenFilesWithTheirTiming() throws Exception {
    SigningKey ksk = KeyFiles.read(BIND.resolve("Kexample.com.+013+16267.key"));
    assertEquals(16267, ksk.tag());
    assertEquals(13, ksk.algorithm());
    assertTrue(ksk.secureEntryPoint());
    assertEquals(Optional.of(Instant.parse("2026-11-30T14:17:23Z")), ksk.timing().activate());
    signsVerifiably(ksk);

    SigningKey zsk = KeyFiles.read(BIND.resolve("Kexample.com.+015+43613.key"));
    assertEquals(15, zsk.algorithm());
    assertFalse(zsk.secureEntryPoint());
    KeyTiming t = zsk.timing();
    assertEquals(Optional.of(Instant.parse("2026-11-30T14:17:23Z")), t.publish());
    assertEquals(Optional.of(Instant.parse("2026-12-01T14:17:23Z")), t.activate());
    assertEquals(Optional.of(Instant.parse("2026-12-30T14:17:23Z")), t.inactive());
    assertEquals(Optional.of(Instant.parse("2027-01-09T14:17:23Z")), t.delete());
    assertEquals(Optional.of(Instant.parse("2026-12-02T14:17:23Z")), t.syncPublish());
    assertEquals(Optional.empty(), t.syncDelete());
    assertEquals(KeyState.PUBLISHED, t.state(Instant.parse("2026-12-01T00:00:00Z")));
    assertEquals(KeyState.ACTIVE, t.state(Instant.parse("2026-12-01T14:17:23Z")));
    assertEquals(KeyState.RETIRED, t.state(Instant.parse("2027-01-01T00:00:00Z")));
    assertEquals(KeyState.REMOVED, t.state(Instant.parse("2027-01-09T14:17:23Z")));
    signsVerifiably(zsk);
  }

  @Test
  void readsLdnsKeygenFilesAsAlwaysActive() throws Exception {
    SigningKey ksk = KeyFiles.read(LDNS.resolve("Kexample.com.+013+48048.key"));
    assertEquals(48048, ksk.tag());
    assertTrue(ksk.secureEntryPoint());
    assertEquals(KeyTiming.always(), ksk.timing());
    signsVerifiably(ksk);
    SigningKey zsk = KeyFiles.read(LDNS.resolve("Kexample.com.+015+32853.key"));
    assertEquals(15, zsk.algorithm());
    signsVerifiably(zsk);
  }

  @Test
  void writesWhatItReadsWithAnOwnerOnlyPrivateFile(@TempDir Path dir) throws Exception {
    for (DnssecAlgorithm alg : DnssecAlgorithm.values()) {
      Instant at = Instant.parse("2026-11-30T10:00:00Z");
      KeyTiming timing =
          new KeyTiming(
              Optional.of(at),
              Optional.of(at),
              Optional.of(at.plus(Duration.ofHours(2))),
              Optional.of(at.plus(Duration.ofDays(30))),
              Optional.of(at.plus(Duration.ofDays(40))),
              Optional.of(at.plus(Duration.ofDays(1))),
              Optional.of(at.plus(Duration.ofDays(35))));
      SigningKey key = KeyGenerator.generate(ZONE, alg, KeyRole.KSK, Duration.ofHours(1), timing);
      KeyFiles.write(dir, key);
      String base = KeyFiles.baseName(key);
      assertTrue(base.matches("Kexample\\.com\\.\\+0" + alg.number() + "\\+\\d{5}"), base);
      assertEquals(
          "rw-------",
          PosixFilePermissions.toString(
              Files.getPosixFilePermissions(dir.resolve(base + ".private"))));
      String privateText = Files.readString(dir.resolve(base + ".private"));
      assertTrue(privateText.startsWith("Private-key-format: v1.3\nAlgorithm: " + alg.number()));
      assertTrue(privateText.contains("\nSyncDelete: 20270104100000\n"), privateText);
      String keyText = Files.readString(dir.resolve(base + ".key"));
      assertTrue(keyText.contains("; Activate: 20261130120000 (Mon Nov 30 12:00:00 2026)\n"));
      SigningKey back = KeyFiles.read(dir.resolve(base + ".key"));
      assertEquals(key.dnskey(), back.dnskey());
      assertEquals(timing, back.timing());
      signsVerifiably(back);
    }
  }

  private static String failure(Path dir, String keyText, String privateText) throws Exception {
    Files.writeString(dir.resolve("Kexample.com.+013+16267.key"), keyText);
    Files.writeString(dir.resolve("Kexample.com.+013+16267.private"), privateText);
    return assertThrows(
            KeyFileException.class, () -> KeyFiles.read(dir.resolve("Kexample.com.+013+16267.key")))
        .getMessage();
  }

  @Test
  void badFilesAreNamedWithTheirField(@TempDir Path dir) throws Exception {
    String key = Files.readString(BIND.resolve("Kexample.com.+013+16267.key"));
    String priv = Files.readString(BIND.resolve("Kexample.com.+013+16267.private"));
    String other = Files.readString(LDNS.resolve("Kexample.com.+013+48048.private"));
    String p = dir.resolve("Kexample.com.+013+16267.private").toString();
    String k = dir.resolve("Kexample.com.+013+16267.key").toString();
    assertEquals(
        p + ": PrivateKey: is not the private half of the DNSKEY in " + k,
        failure(dir, key, other.replace("v1.2", "v1.3")));
    assertTrue(
        failure(dir, key, priv.replace("Algorithm: 13", "Algorithm: 15"))
            .startsWith(p + ": Algorithm: must be 13 like the DNSKEY"));
    assertEquals(
        p + ": PrivateKey: must be 32 bytes for ECDSAP256SHA256, was 3",
        failure(dir, key, priv.replaceAll("PrivateKey: .*", "PrivateKey: AAAA")));
    assertEquals(
        p + ": Activate: must be a UTC time as YYYYMMDDHHMMSS, was 'tomorrow'",
        failure(dir, key, priv.replaceAll("Activate: .*", "Activate: tomorrow")));
    assertEquals(
        p + ": Private-key-format: must be v1.2 or v1.3, was 'v2.0'",
        failure(dir, key, priv.replace("v1.3", "v2.0")));
    assertTrue(
        failure(dir, key.replace("257 3 13", "257 3 8"), priv)
            .startsWith(k + ": DNSKEY algorithm: algorithm 8 (RSASHA256) is not supported"));
    assertTrue(
        failure(dir, key.replace("257 3 13", "257 3 13 ").replace("mv0X", "AAAA"), priv)
            .startsWith(
                k + ": file name: holds the DNSKEY of example.com. with algorithm 13 and tag"));
    assertTrue(failure(dir, "; nothing\n", priv).startsWith(k + ": DNSKEY: no DNSKEY record"));
  }
}
