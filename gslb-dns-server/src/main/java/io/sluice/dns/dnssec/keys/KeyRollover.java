package io.sluice.dns.dnssec.keys;

import io.sluice.core.config.DnssecAlgorithm;
import io.sluice.core.config.DnssecConfig;
import io.sluice.core.config.DurationParser;
import io.sluice.core.config.RecordConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.dnssec.DnssecKeyManager.NextStep;
import io.sluice.core.dnssec.KeyRole;
import io.sluice.core.dnssec.KeyState;
import io.sluice.core.dnssec.RolloverStep;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The rollover steps as pure functions of a zone's keys and the time: which step may run and from
 * when, and what timing a step writes. ZSK pre-publication (RFC 6781 §4.1.1.1): publish a new ZSK;
 * once its DNSKEY is in every cache, it signs and the old one retires; once the old one's
 * signatures are out of every cache, its DNSKEY goes. KSK (or CSK) double-DS: publish a new key
 * that signs beside the old one, with CDS/CDNSKEY for both; once the operator confirms the parent
 * serves the new DS, the old key's CDS goes and it stops signing after the parent's DS TTL; then
 * its DNSKEY goes.
 */
public final class KeyRollover {
  private KeyRollover() {}

  /** What the steps wait for: the TTLs of the records a step replaces, and propagation. */
  public record Waits(
      Duration dnskeyTtl,
      Duration propagationDelay,
      Duration parentDsTtl,
      Duration maxZoneTtl,
      Duration signatureValidity) {

    /**
     * The waits of a zone: its {@code dnssec} settings; {@code maxZoneTtl} left out is the largest
     * TTL its configuration declares (zone, SOA, records, services, DNSKEY).
     */
    public static Waits of(ZoneConfig z) {
      DnssecConfig d = z.dnssec();
      Duration max = d.maxZoneTtl();
      if (max == null) {
        long ttl = Math.max(z.ttl(), d.dnskeyTtl().toSeconds());
        if (z.soa() != null) {
          ttl = Math.max(ttl, z.soa().minimum() == null ? 0 : z.soa().minimum());
          ttl = Math.max(ttl, z.soa().ttl() == null ? 0 : z.soa().ttl());
        }
        for (RecordConfig r : z.records()) {
          ttl = Math.max(ttl, r.ttl() == null ? 0 : r.ttl());
        }
        for (ServiceConfig s : z.services()) {
          ttl = Math.max(ttl, s.ttl());
        }
        max = Duration.ofSeconds(ttl);
      }
      return new Waits(
          d.dnskeyTtl(), d.propagationDelay(), d.parentDsTtl(), max, d.signatureValidity());
    }
  }

  /** A step's effect: the keys to write (changed or new) and what it did, or why not. */
  public sealed interface Plan {}

  /** The step runs: write {@code keys} (new ones included). */
  public record Change(List<SigningKey> keys, String message) implements Plan {}

  /** The step is refused: why, and from when it can run (null when time does not help). */
  public record Refusal(String message, Instant notBefore) implements Plan {}

  /** The steps {@code keys} allow at or after {@code now}, each with its earliest moment. */
  public static List<NextStep> next(ZoneKeys keys, Waits w, Instant now) {
    List<NextStep> out = new ArrayList<>();
    for (RolloverStep step : RolloverStep.values()) {
      Instant notBefore = null;
      Plan p = plan(step, keys, w, now, false);
      if (p instanceof Change) {
        notBefore = now;
      } else if (p instanceof Refusal r && r.notBefore() != null) {
        notBefore = r.notBefore();
      }
      if (notBefore != null) {
        out.add(new NextStep(step, notBefore, describe(step)));
      }
    }
    return out;
  }

  private static String describe(RolloverStep step) {
    return switch (step) {
      case ZSK_PUBLISH -> "publish a new ZSK beside the active one";
      case ZSK_ACTIVATE -> "the new ZSK signs, the old one retires";
      case ZSK_REMOVE -> "withdraw the retired ZSK's DNSKEY";
      case KSK_PUBLISH -> "publish a new KSK signing beside the old one, with CDS for both";
      case KSK_DS_SEEN -> "confirm the parent serves the new DS; the old key retires";
      case KSK_REMOVE -> "withdraw the retired KSK's DNSKEY";
    };
  }

  /**
   * What {@code step} does to {@code keys} at {@code now}: the keys to write, or a refusal saying
   * why (and from when, if waiting helps). A new key gets the algorithm and DNSKEY TTL of the key
   * it replaces.
   */
  public static Plan plan(RolloverStep step, ZoneKeys keys, Waits w, Instant now) {
    return plan(step, keys, w, now, true);
  }

  // Without make, a step that would run answers with no keys: listing never generates any.
  private static Plan plan(RolloverStep step, ZoneKeys keys, Waits w, Instant now, boolean make) {
    Instant at = now.truncatedTo(ChronoUnit.SECONDS);
    return switch (step) {
      case ZSK_PUBLISH -> zskPublish(keys, w, at, make);
      case ZSK_ACTIVATE -> zskActivate(keys, w, at);
      case ZSK_REMOVE -> zskRemove(keys, w, at);
      case KSK_PUBLISH -> kskPublish(keys, w, at, make);
      case KSK_DS_SEEN -> kskDsSeen(keys, w, at);
      case KSK_REMOVE -> kskRemove(keys, w, at);
    };
  }

  private static List<SigningKey> inState(ZoneKeys keys, boolean sep, KeyState state, Instant now) {
    return keys.keys().stream()
        .filter(k -> k.secureEntryPoint() == sep && k.timing().state(now) == state)
        .toList();
  }

  // A key published for a rollover that has not started signing yet.
  private static List<SigningKey> incoming(ZoneKeys keys, boolean sep, Instant now) {
    return keys.keys().stream()
        .filter(
            k ->
                k.secureEntryPoint() == sep
                    && k.timing().activate().isEmpty()
                    && !k.timing().legacy()
                    && (k.timing().state(now) == KeyState.PUBLISHED
                        || k.timing().state(now) == KeyState.GENERATED))
        .toList();
  }

  private static String tags(List<SigningKey> ks) {
    return String.join(", ", ks.stream().map(k -> Integer.toString(k.tag())).toList());
  }

  private static Instant latest(List<SigningKey> ks, Function<KeyTiming, Optional<Instant>> f) {
    return ks.stream()
        .map(k -> f.apply(k.timing()).orElse(Instant.EPOCH))
        .max(Comparator.naturalOrder())
        .orElse(Instant.EPOCH);
  }

  private static String wait(Duration d) {
    return DurationParser.format(d);
  }

  private static Plan zskPublish(ZoneKeys keys, Waits w, Instant now, boolean make) {
    List<SigningKey> active = inState(keys, false, KeyState.ACTIVE, now);
    if (active.isEmpty()) {
      return new Refusal(
          "the zone has no active ZSK: it signs with a combined key (CSK); roll that with"
              + " ksk-publish",
          null);
    }
    if (!incoming(keys, false, now).isEmpty()) {
      return new Refusal(
          "a ZSK rollover is under way: key "
              + tags(incoming(keys, false, now))
              + " is published,"
              + " next step zsk-activate",
          null);
    }
    List<SigningKey> retired = inState(keys, false, KeyState.RETIRED, now);
    if (!retired.isEmpty()) {
      return new Refusal(
          "the retired ZSK " + tags(retired) + " is still published: finish with zsk-remove first",
          null);
    }
    if (!make) {
      return new Change(List.of(), "");
    }
    SigningKey old = active.get(0);
    Instant at = after(keys, false, now);
    SigningKey fresh =
        KeyGenerator.generate(
            keys.zone(),
            DnssecAlgorithm.ofNumber(old.algorithm()),
            KeyRole.ZSK,
            Duration.ofSeconds(old.dnskey().getTTL()),
            new KeyTiming(
                Optional.of(at),
                Optional.of(at),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty(),
                Optional.empty()));
    return new Change(
        List.of(fresh),
        "published the new ZSK "
            + fresh.tag()
            + "; zsk-activate can run from "
            + at.plus(w.dnskeyTtl()).plus(w.propagationDelay())
            + " (DNSKEY TTL "
            + wait(w.dnskeyTtl())
            + " + propagation "
            + wait(w.propagationDelay())
            + ")");
  }

  // A new key's publish time: now, or a second after the newest key of its kind, so that the
  // steps after it tell the new key from the old one by publish time even within one second.
  private static Instant after(ZoneKeys keys, boolean sep, Instant now) {
    Instant newest =
        keys.keys().stream()
            .filter(k -> k.secureEntryPoint() == sep)
            .map(k -> k.timing().publish().orElse(Instant.EPOCH))
            .max(Comparator.naturalOrder())
            .orElse(Instant.EPOCH);
    return newest.isBefore(now) ? now : newest.plusSeconds(1);
  }

  private static Plan zskActivate(ZoneKeys keys, Waits w, Instant now) {
    List<SigningKey> incoming = incoming(keys, false, now);
    if (incoming.isEmpty()) {
      return new Refusal("no ZSK is waiting to be activated: start with zsk-publish", null);
    }
    SigningKey fresh = incoming.get(0);
    Instant from =
        fresh.timing().publish().orElseThrow().plus(w.dnskeyTtl()).plus(w.propagationDelay());
    if (now.isBefore(from)) {
      return new Refusal(
          "the new ZSK "
              + fresh.tag()
              + "'s DNSKEY may not be in every cache yet (published "
              + fresh.timing().publish().orElseThrow()
              + ", DNSKEY TTL "
              + wait(w.dnskeyTtl())
              + " + propagation "
              + wait(w.propagationDelay())
              + "): zsk-activate can run from "
              + from,
          from);
    }
    List<SigningKey> out = new ArrayList<>();
    out.add(new SigningKey(fresh.dnskey(), fresh.privateKey(), fresh.timing().withActivate(now)));
    List<SigningKey> old = inState(keys, false, KeyState.ACTIVE, now);
    for (SigningKey k : old) {
      out.add(new SigningKey(k.dnskey(), k.privateKey(), k.timing().withInactive(now)));
    }
    Instant removable = now.plus(zskRemoveWait(w));
    return new Change(
        out,
        "the ZSK "
            + fresh.tag()
            + " signs now"
            + (old.isEmpty() ? "" : "; " + tags(old) + " retired")
            + "; zsk-remove can run from "
            + removable);
  }

  private static Duration zskRemoveWait(Waits w) {
    return w.maxZoneTtl().plus(w.signatureValidity()).plus(w.propagationDelay());
  }

  private static Plan zskRemove(ZoneKeys keys, Waits w, Instant now) {
    List<SigningKey> retired = inState(keys, false, KeyState.RETIRED, now);
    if (retired.isEmpty()) {
      return new Refusal("no retired ZSK to remove", null);
    }
    Instant from = latest(retired, KeyTiming::inactive).plus(zskRemoveWait(w));
    if (now.isBefore(from)) {
      return new Refusal(
          "signatures of the retired ZSK "
              + tags(retired)
              + " may still be cached (max zone TTL "
              + wait(w.maxZoneTtl())
              + " + signature validity "
              + wait(w.signatureValidity())
              + " + propagation "
              + wait(w.propagationDelay())
              + " after it retired): zsk-remove can run from "
              + from,
          from);
    }
    List<SigningKey> out = new ArrayList<>();
    for (SigningKey k : retired) {
      out.add(new SigningKey(k.dnskey(), k.privateKey(), k.timing().withDelete(now)));
    }
    return new Change(out, "withdrew the DNSKEY of the retired ZSK " + tags(retired));
  }

  private static Plan kskPublish(ZoneKeys keys, Waits w, Instant now, boolean make) {
    List<SigningKey> active = inState(keys, true, KeyState.ACTIVE, now);
    if (active.isEmpty()) {
      return new Refusal("the zone has no active KSK or CSK to roll", null);
    }
    List<SigningKey> rolling = kskRolling(keys, now);
    if (!rolling.isEmpty()) {
      return new Refusal(
          "a KSK rollover is under way (new key "
              + tags(rolling)
              + "): next step ksk-ds-seen, then ksk-remove",
          null);
    }
    List<SigningKey> retiring = retiringSep(keys, now);
    if (!retiring.isEmpty()) {
      return new Refusal(
          "the old key " + tags(retiring) + " is still published: finish with ksk-remove first",
          null);
    }
    if (!make) {
      return new Change(List.of(), "");
    }
    SigningKey old = active.get(0);
    KeyRole role = keys.role(old);
    Instant at = after(keys, true, now);
    SigningKey fresh =
        KeyGenerator.generate(
            keys.zone(),
            DnssecAlgorithm.ofNumber(old.algorithm()),
            role,
            Duration.ofSeconds(old.dnskey().getTTL()),
            // Signs at once beside the old key: validators holding the old DNSKEY RRset keep
            // validating with the old key's signatures.
            KeyTiming.startingAt(at).withSyncPublish(at));
    List<SigningKey> out = new ArrayList<>();
    out.add(fresh);
    for (SigningKey k : active) {
      if (!k.timing().syncPublished(now)) {
        // The CDS RRset is the DS set the parent should hold: both keys while rolling.
        out.add(new SigningKey(k.dnskey(), k.privateKey(), k.timing().withSyncPublish(now)));
      }
    }
    return new Change(
        out,
        "published the new "
            + role
            + " "
            + fresh.tag()
            + " with CDS/CDNSKEY for it and "
            + tags(active)
            + "; add its DS to the parent ("
            + ZoneKeyView.ds(fresh.dnskey())
            + "), then run ksk-ds-seen (from "
            + at.plus(w.dnskeyTtl()).plus(w.propagationDelay())
            + ")");
  }

  // SEP keys the parent's DS was confirmed away from: an inactive time set, still published.
  private static List<SigningKey> retiringSep(ZoneKeys keys, Instant now) {
    return keys.keys().stream()
        .filter(k -> k.secureEntryPoint() && k.timing().inactive().isPresent())
        .filter(k -> k.timing().published(now))
        .toList();
  }

  // The new SEP key of a rollover: active, and another active SEP key has not retired yet, with
  // the new one published after it. Only while the old key has no inactive time set.
  private static List<SigningKey> kskRolling(ZoneKeys keys, Instant now) {
    List<SigningKey> active =
        keys.keys().stream()
            // A key scheduled to publish a second from now counts: it is the rollover's.
            .filter(SigningKey::secureEntryPoint)
            .filter(
                k ->
                    k.timing().state(now) != KeyState.RETIRED
                        && k.timing().state(now) != KeyState.REMOVED)
            .sorted(Comparator.comparing(k -> k.timing().publish().orElse(Instant.EPOCH)))
            .toList();
    if (active.size() < 2) {
      return List.of();
    }
    return active.subList(1, active.size());
  }

  private static Plan kskDsSeen(ZoneKeys keys, Waits w, Instant now) {
    List<SigningKey> rolling = kskRolling(keys, now);
    if (rolling.isEmpty()) {
      return new Refusal("no KSK rollover is under way: start with ksk-publish", null);
    }
    SigningKey fresh = rolling.get(rolling.size() - 1);
    List<SigningKey> old =
        keys.keys().stream()
            .filter(k -> k.secureEntryPoint() && k != fresh && k.timing().published(now))
            .filter(k -> k.timing().inactive().isEmpty())
            .toList();
    if (old.isEmpty()) {
      return new Refusal(
          "the parent's DS was already confirmed: the old key retires at its inactive time, then"
              + " ksk-remove",
          null);
    }
    Instant from =
        fresh.timing().publish().orElseThrow().plus(w.dnskeyTtl()).plus(w.propagationDelay());
    if (now.isBefore(from)) {
      return new Refusal(
          "the new key "
              + fresh.tag()
              + "'s DNSKEY may not be in every cache yet: ksk-ds-seen can run from "
              + from,
          from);
    }
    Instant retire = now.plus(w.parentDsTtl()).plus(w.propagationDelay());
    List<SigningKey> out = new ArrayList<>();
    for (SigningKey k : old) {
      out.add(
          new SigningKey(
              k.dnskey(), k.privateKey(), k.timing().withInactive(retire).withSyncDelete(now)));
    }
    return new Change(
        out,
        "the parent serves the DS of "
            + fresh.tag()
            + ": the CDS of "
            + tags(old)
            + " is withdrawn, and it stops signing at "
            + retire
            + " (parent DS TTL "
            + wait(w.parentDsTtl())
            + " + propagation "
            + wait(w.propagationDelay())
            + "); ksk-remove can run from "
            + retire.plus(kskRemoveWait(keys, old.get(0), w)));
  }

  // Once the old SEP key stopped signing: its signatures of the DNSKEY RRset expire with that
  // RRset's TTL; a CSK's signatures of the zone's data with the zone's.
  private static Duration kskRemoveWait(ZoneKeys keys, SigningKey old, Waits w) {
    return keys.role(old) == KeyRole.CSK
        ? zskRemoveWait(w)
        : w.dnskeyTtl().plus(w.propagationDelay());
  }

  private static Plan kskRemove(ZoneKeys keys, Waits w, Instant now) {
    List<SigningKey> retiring = retiringSep(keys, now);
    if (retiring.isEmpty()) {
      return new Refusal("no retiring KSK: confirm the parent's DS with ksk-ds-seen first", null);
    }
    Instant from = null;
    for (SigningKey k : retiring) {
      Instant f = k.timing().inactive().orElseThrow().plus(kskRemoveWait(keys, k, w));
      from = from == null || f.isAfter(from) ? f : from;
    }
    if (now.isBefore(from)) {
      return new Refusal(
          "the old key "
              + tags(retiring)
              + " signs until "
              + latest(retiring, KeyTiming::inactive)
              + " (the parent's DS TTL after ksk-ds-seen), and its signatures stay cached after:"
              + " ksk-remove can run from "
              + from,
          from);
    }
    List<SigningKey> out = new ArrayList<>();
    for (SigningKey k : retiring) {
      out.add(new SigningKey(k.dnskey(), k.privateKey(), k.timing().withDelete(now)));
    }
    return new Change(out, "withdrew the DNSKEY of the old key " + tags(retiring));
  }
}
