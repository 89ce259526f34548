package io.sluice.dns.dnssec.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.testing.ManualTicker;
import io.sluice.dns.dnssec.keys.KeyDirectory.LoadReport;
import io.sluice.dns.dnssec.keys.KeyDirectory.ZoneSetup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;

class KeyDirectoryTest {
  static final Name ZONE = KeyFilesTest.ZONE;
  static final Name OTHER = Name.fromConstantString("example.net.");

  static final KeyRollover.Waits WAITS =
      new KeyRollover.Waits(
          Duration.ofHours(1),
          Duration.ofMinutes(5),
          Duration.ofDays(1),
          Duration.ofHours(2),
          Duration.ofDays(14));

  static ZoneSetup setup(Name zone, Path dir, boolean generate) {
    return new ZoneSetup(zone, dir, DnssecAlgorithm.ECDSAP256SHA256, generate, WAITS);
  }

  private static void copy(Path from, Path dir, String base) throws Exception {
    Files.createDirectories(dir);
    for (String ext : List.of(".key", ".private")) {
      Files.copy(
          from.resolve(base + ext), dir.resolve(base + ext), StandardCopyOption.REPLACE_EXISTING);
    }
  }

  @Test
  void generatesACombinedKeyOnFirstStartOnly(@TempDir Path state) throws Exception {
    Path dir = state.resolve("keys/example.com");
    KeyDirectory keys = new KeyDirectory(new ManualTicker());
    LoadReport first = keys.load(List.of(setup(ZONE, dir, true)));
    assertEquals(List.of(), first.problems());
    assertEquals(1, first.generated().size());
    ZoneKeys z = keys.keys(ZONE).orElseThrow();
    assertEquals(1, z.keys().size());
    SigningKey csk = z.keys().get(0);
    assertEquals(KeyRole.CSK, z.role(csk));
    assertEquals(13, csk.algorithm());
    assertEquals(List.of(csk), z.zoneSigning(keys.now()));
    assertEquals(List.of(csk), z.keySigning(keys.now()));
    Path privateFile = dir.resolve(KeyFiles.baseName(csk) + ".private");
    assertEquals(
        "rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(privateFile)));
    KeyFilesTest.signsVerifiably(csk);

    // A restart finds the key and makes no other.
    KeyDirectory restarted = new KeyDirectory(new ManualTicker());
    LoadReport again = restarted.load(List.of(setup(ZONE, dir, true)));
    assertEquals(List.of(), again.generated());
    assertEquals(z, restarted.keys(ZONE).orElseThrow());
    assertEquals(Optional.empty(), restarted.keys(OTHER));
  }

  @Test
  void withoutGenerateAnEmptyDirectoryIsReportedNotFilled(@TempDir Path dir) {
    KeyDirectory keys = new KeyDirectory(new ManualTicker());
    LoadReport r = keys.load(List.of(setup(ZONE, dir, false)));
    assertEquals(List.of(), r.generated());
    assertEquals(1, r.problems().size());
    assertTrue(
        r.problems().get(0).getMessage().startsWith(dir + ": no usable key for example.com."),
        r.problems().get(0).getMessage());
    assertEquals(List.of(), keys.keys(ZONE).orElseThrow().keys());
  }

  @Test
  void oneBadFileNeverFailsTheOtherKeysOrZones(@TempDir Path state) throws Exception {
    Path com = state.resolve("com");
    Path net = state.resolve("net");
    copy(KeyFilesTest.BIND, com, "Kexample.com.+013+16267");
    copy(KeyFilesTest.BIND, com, "Kexample.com.+015+43613");
    copy(KeyFilesTest.LDNS, com, "Kexample.com.+015+32853");
    // Another zone's key in the same directory is none of this zone's business.
    Files.writeString(com.resolve("Kexample.org.+013+00001.key"), "garbage");
    Files.writeString(
        com.resolve("Kexample.com.+015+32853.private"),
        Files.readString(com.resolve("Kexample.com.+015+32853.private"))
            .replaceAll("PrivateKey: .*", "PrivateKey: !!"));
    KeyDirectory keys = new KeyDirectory(new ManualTicker());
    List<Name> told = new ArrayList<>();
    keys.addListener(told::add);
    LoadReport r = keys.load(List.of(setup(ZONE, com, false), setup(OTHER, net, true)));
    assertEquals(1, r.problems().size(), r.toString());
    KeyFileException bad = r.problems().get(0);
    assertEquals(com.resolve("Kexample.com.+015+32853.private").toString(), bad.file());
    assertEquals("PrivateKey", bad.field());
    assertEquals(
        List.of(16267, 43613),
        keys.keys(ZONE).orElseThrow().keys().stream().map(SigningKey::tag).toList());
    assertEquals(1, keys.keys(OTHER).orElseThrow().keys().size());
    assertEquals(List.of(ZONE, OTHER), told);
  }

  @Test
  void aFileThatTurnsBadKeepsItsLastGoodKey(@TempDir Path dir) throws Exception {
    copy(KeyFilesTest.BIND, dir, "Kexample.com.+013+16267");
    KeyDirectory keys = new KeyDirectory(new ManualTicker());
    keys.load(List.of(setup(ZONE, dir, false)));
    ZoneKeys before = keys.keys(ZONE).orElseThrow();
    List<Name> told = new ArrayList<>();
    keys.addListener(told::add);
    Files.writeString(dir.resolve("Kexample.com.+013+16267.private"), "Private-key-format: v1.3\n");
    LoadReport r = keys.reload(ZONE);
    assertEquals(1, r.problems().size());
    assertTrue(r.problems().get(0).getMessage().endsWith("(keeping the key as loaded before)"));
    assertEquals(before, keys.keys(ZONE).orElseThrow());
    assertEquals(List.of(), told, "nothing changed, so the signer is not disturbed");
  }

  @Test
  void listenersHearOfTimingInstantsAsTheyPass(@TempDir Path dir) throws Exception {
    ManualTicker clock = new ManualTicker();
    KeyDirectory keys = new KeyDirectory(clock);
    Instant now = keys.now();
    KeyTiming later =
        new KeyTiming(
            Optional.of(now),
            Optional.of(now),
            Optional.of(now.plus(Duration.ofHours(2))),
            Optional.empty(),
            Optional.empty(),
            Optional.empty(),
            Optional.empty());
    KeyFiles.write(
        dir,
        KeyGenerator.generate(
            ZONE, DnssecAlgorithm.ED25519, KeyRole.ZSK, Duration.ofHours(1), later));
    keys.load(List.of(setup(ZONE, dir, true)));
    List<Name> told = new ArrayList<>();
    keys.addListener(told::add);
    assertEquals(
        Optional.of(
            now.plus(Duration.ofHours(2)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS)),
        keys.keys(ZONE).orElseThrow().nextChange(now));
    clock.advance(Duration.ofMinutes(119));
    keys.tick();
    assertEquals(List.of(), told);
    assertEquals(List.of(), keys.keys(ZONE).orElseThrow().zoneSigning(keys.now()));
    clock.advance(Duration.ofMinutes(1));
    keys.tick();
    assertEquals(List.of(ZONE), told);
    assertEquals(1, keys.keys(ZONE).orElseThrow().zoneSigning(keys.now()).size());
    keys.tick();
    assertEquals(List.of(ZONE), told, "an instant is told once");
  }

  @Test
  void aZoneNoLongerSignedKeepsItsKeysButIsNotListed(@TempDir Path state) {
    KeyDirectory keys = new KeyDirectory(new ManualTicker());
    keys.load(
        List.of(setup(ZONE, state.resolve("com"), true), setup(OTHER, state.resolve("net"), true)));
    ZoneKeys other = keys.keys(OTHER).orElseThrow();
    keys.load(List.of(setup(ZONE, state.resolve("com"), true)));
    assertEquals(List.of(ZONE), keys.zones());
    // The build that dropped it may yet be rejected: the configuration served still signs it.
    assertEquals(other, keys.keys(OTHER).orElseThrow());
  }
}
