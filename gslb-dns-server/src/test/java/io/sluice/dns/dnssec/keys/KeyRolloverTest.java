package io.sluice.dns.dnssec.keys;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.dnssec.DnssecKeyManager.Done;
import io.sluice.core.dnssec.DnssecKeyManager.KeyView;
import io.sluice.core.dnssec.DnssecKeyManager.Refused;
import io.sluice.core.dnssec.DnssecKeyManager.StepOutcome;
import io.sluice.core.dnssec.DnssecKeyManager.ZoneKeysView;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.dnssec.KeyState;
import io.sluice.core.dnssec.RolloverStep;
import io.sluice.core.testing.ManualTicker;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.Name;

/** Both rollovers step by step on a manual clock, through the key files, as the API runs them. */
class KeyRolloverTest {
  private static final Name ZONE = KeyFilesTest.ZONE;
  private static final Actor OPS = new Actor("ops", "admin");

  private final ManualTicker clock = new ManualTicker();
  private final List<Map<String, Object>> audited = new ArrayList<>();
  private final AuditSink audit =
      (actor, action, service, reason, before, after, details) -> {
        audited.add(
            Map.of("actor", actor.name(), "action", action, "reason", reason, "d", details));
        return audited.size();
      };

  private KeyManager manager(KeyDirectory keys) {
    return new KeyManager(keys, audit, KeyManager.KeyStore.FILES);
  }

  private static Map<KeyRole, List<KeyState>> states(ZoneKeysView v) {
    Map<KeyRole, List<KeyState>> m = new java.util.TreeMap<>();
    for (KeyView k : v.keys()) {
      m.computeIfAbsent(k.role(), r -> new ArrayList<>()).add(k.state());
    }
    m.values().forEach(l -> l.sort(null));
    return m;
  }

  private Instant refusedUntil(KeyManager m, RolloverStep step) throws Exception {
    StepOutcome o = m.step(OPS, "example.com", step, "test");
    Refused r = assertInstanceOf(Refused.class, o, o.toString());
    assertTrue(r.message().contains("can run from " + r.notBefore()), r.message());
    return r.notBefore();
  }

  private Done done(KeyManager m, RolloverStep step) throws Exception {
    StepOutcome o = m.step(OPS, "example.com.", step, "scheduled rollover");
    return assertInstanceOf(Done.class, o, o.toString());
  }

  private void advanceTo(Instant t) {
    clock.advance(Duration.between(Instant.ofEpochMilli(clock.currentTimeMillis()), t));
  }

  @Test
  void zskPrePublicationWaitsForEachTtl(@TempDir Path dir) throws Exception {
    KeyDirectory keys = new KeyDirectory(clock);
    Instant start = keys.now();
    KeyFiles.write(
        dir,
        KeyGenerator.generate(
            ZONE,
            DnssecAlgorithm.ECDSAP256SHA256,
            KeyRole.KSK,
            Duration.ofHours(1),
            KeyTiming.startingAt(start)));
    SigningKey oldZsk =
        KeyGenerator.generate(
            ZONE,
            DnssecAlgorithm.ECDSAP256SHA256,
            KeyRole.ZSK,
            Duration.ofHours(1),
            KeyTiming.startingAt(start));
    KeyFiles.write(dir, oldZsk);
    keys.load(List.of(KeyDirectoryTest.setup(ZONE, dir, false)));
    List<Name> told = new ArrayList<>();
    keys.addListener(told::add);
    KeyManager m = manager(keys);
    clock.advance(Duration.ofMinutes(1));
    start = keys.now();

    assertEquals(
        "no ZSK is waiting to be activated: start with zsk-publish",
        ((Refused) m.step(OPS, "example.com", RolloverStep.ZSK_ACTIVATE, null))
            .message()
            .replace("zsk-activate refused: ", ""));
    Done published = done(m, RolloverStep.ZSK_PUBLISH);
    assertEquals(List.of(ZONE), told, "the signer hears of the new DNSKEY");
    assertEquals(
        Map.of(
            KeyRole.KSK,
            List.of(KeyState.ACTIVE),
            KeyRole.ZSK,
            List.of(KeyState.PUBLISHED, KeyState.ACTIVE)),
        states(published.zone()));
    // A second rollover cannot start while this one runs.
    assertInstanceOf(Refused.class, m.step(OPS, "example.com", RolloverStep.ZSK_PUBLISH, null));

    // DNSKEY TTL 1h + propagation 5m.
    Instant activateFrom = refusedUntil(m, RolloverStep.ZSK_ACTIVATE);
    assertEquals(start.plus(Duration.ofMinutes(65)), activateFrom);
    assertTrue(
        published.zone().next().stream()
            .anyMatch(
                n -> n.step() == RolloverStep.ZSK_ACTIVATE && n.notBefore().equals(activateFrom)));
    advanceTo(activateFrom.minusSeconds(1));
    refusedUntil(m, RolloverStep.ZSK_ACTIVATE);
    advanceTo(activateFrom);
    done(m, RolloverStep.ZSK_ACTIVATE);
    ZoneKeys now = keys.keys(ZONE).orElseThrow();
    assertEquals(1, now.zoneSigning(keys.now()).size());
    assertTrue(now.zoneSigning(keys.now()).get(0).tag() != oldZsk.tag(), "the new ZSK signs");
    assertEquals(3, now.published(keys.now()).size(), "the old ZSK stays published");

    // Max zone TTL 2h + signature validity 14d + propagation 5m after it retired.
    Instant removeFrom = refusedUntil(m, RolloverStep.ZSK_REMOVE);
    assertEquals(activateFrom.plus(Duration.ofDays(14)).plus(Duration.ofMinutes(125)), removeFrom);
    advanceTo(removeFrom);
    done(m, RolloverStep.ZSK_REMOVE);
    assertEquals(2, keys.keys(ZONE).orElseThrow().published(keys.now()).size());

    // The timing is in the files: a restart sees the same states.
    KeyDirectory restarted = new KeyDirectory(clock);
    restarted.load(List.of(KeyDirectoryTest.setup(ZONE, dir, false)));
    ZoneKeysView after = manager(restarted).zone("example.com").orElseThrow();
    assertEquals(
        List.of(KeyState.ACTIVE, KeyState.ACTIVE, KeyState.REMOVED),
        after.keys().stream().map(KeyView::state).sorted().toList());
    assertEquals(
        List.of("dnssec-zsk-publish", "dnssec-zsk-activate", "dnssec-zsk-remove"),
        audited.stream().map(a -> a.get("action")).toList());
    assertEquals("ops", audited.get(0).get("actor"));
    assertEquals("scheduled rollover", audited.get(0).get("reason"));
  }

  @Test
  void cskDoubleDsWaitsForTheOperatorAndTheParentsTtl(@TempDir Path dir) throws Exception {
    KeyDirectory keys = new KeyDirectory(clock);
    keys.load(List.of(KeyDirectoryTest.setup(ZONE, dir, true)));
    KeyManager m = manager(keys);
    ZoneKeysView before = m.zone("example.com").orElseThrow();
    assertEquals(1, before.ds().size());
    SigningKey old = keys.keys(ZONE).orElseThrow().keys().get(0);
    assertInstanceOf(Refused.class, m.step(OPS, "example.com", RolloverStep.ZSK_PUBLISH, null));

    clock.advance(Duration.ofMinutes(1));
    Instant start = keys.now();
    Done published = done(m, RolloverStep.KSK_PUBLISH);
    assertTrue(published.message().contains(" IN DS "), published.message());
    ZoneKeys rolling = keys.keys(ZONE).orElseThrow();
    assertEquals(2, rolling.syncPublished(keys.now()).size(), "CDS for both keys");
    assertEquals(2, rolling.keySigning(keys.now()).size(), "both sign while the DS changes");
    assertEquals(2, published.zone().ds().size());

    Instant seenFrom = refusedUntil(m, RolloverStep.KSK_DS_SEEN);
    assertEquals(start.plus(Duration.ofMinutes(65)), seenFrom);
    assertEquals(
        "ksk-remove refused: no retiring KSK: confirm the parent's DS with ksk-ds-seen first",
        ((Refused) m.step(OPS, "example.com", RolloverStep.KSK_REMOVE, null)).message());
    advanceTo(seenFrom);
    done(m, RolloverStep.KSK_DS_SEEN);
    ZoneKeys confirmed = keys.keys(ZONE).orElseThrow();
    assertEquals(1, confirmed.syncPublished(keys.now()).size(), "the old key's CDS is withdrawn");
    assertEquals(2, confirmed.keySigning(keys.now()).size(), "the old key signs for the DS TTL");

    // Parent DS TTL 1d + propagation 5m, then (a CSK) max zone TTL + validity + propagation.
    Instant retired = seenFrom.plus(Duration.ofDays(1)).plus(Duration.ofMinutes(5));
    Instant removeFrom = refusedUntil(m, RolloverStep.KSK_REMOVE);
    assertEquals(retired.plus(Duration.ofDays(14)).plus(Duration.ofMinutes(125)), removeFrom);
    List<Name> told = new ArrayList<>();
    keys.addListener(told::add);
    advanceTo(retired);
    keys.tick();
    assertEquals(List.of(ZONE), told, "the signer hears the old key stopped signing");
    assertEquals(1, keys.keys(ZONE).orElseThrow().keySigning(keys.now()).size());
    advanceTo(removeFrom);
    done(m, RolloverStep.KSK_REMOVE);
    ZoneKeys after = keys.keys(ZONE).orElseThrow();
    assertEquals(1, after.published(keys.now()).size());
    assertTrue(after.published(keys.now()).get(0).getFootprint() != old.tag());
    assertEquals(1, m.zone("example.com").orElseThrow().ds().size());
  }

  @Test
  void aRolloverInTheKeysFirstSecondPublishesTheNewKeyASecondLater(@TempDir Path dir)
      throws Exception {
    KeyDirectory keys = new KeyDirectory(clock);
    keys.load(List.of(KeyDirectoryTest.setup(ZONE, dir, true)));
    KeyManager m = manager(keys);
    Instant created = keys.now();
    done(m, RolloverStep.KSK_PUBLISH);
    List<Instant> publish =
        keys.keys(ZONE).orElseThrow().keys().stream()
            .map(k -> k.timing().publish().orElseThrow())
            .sorted()
            .toList();
    assertEquals(List.of(created, created.plusSeconds(1)), publish);
    assertInstanceOf(Refused.class, m.step(OPS, "example.com", RolloverStep.KSK_PUBLISH, null));
    clock.advance(Duration.ofSeconds(1));
    assertEquals(2, keys.keys(ZONE).orElseThrow().keySigning(keys.now()).size());
  }
}
