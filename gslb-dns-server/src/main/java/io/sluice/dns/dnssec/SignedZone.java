package io.sluice.dns.dnssec;

import io.sluice.core.spi.Ticker;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneNode;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.xbill.DNS.DClass;
import org.xbill.DNS.NSECRecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * One signed zone: the signatures of all its static RRsets, made off the query path when the zone
 * is loaded (in parallel) and replaced as a whole by {@link #refreshIfDue} well before they expire;
 * the signatures of GSLB answer RRsets, made before the snapshot that serves them is published and
 * kept per (owner, type, configured TTL, rdata); and the online signer of denial-of-existence NSEC
 * records, cached and bounded by a {@link SignatureBudget}. Readers never lock: each set is behind
 * one volatile reference or in a concurrent map, and {@link #generation} changes whenever a
 * signature that encoded answers may hold was replaced, so those answers are encoded again.
 */
public final class SignedZone {
  /** The NXNAME meta type of compact denial (RFC 9824). */
  public static final int NXNAME = 128;

  private static final RRSIGRecord[] NONE = {};
  private static final int NSEC_SLOTS = 1 << 14;
  private static final int MAX_ANSWER_SETS = 100_000;

  private final Zone zone;
  private final RrsetSigner signer;
  private final SignatureBudget budget;
  private volatile Static statics;
  private volatile Object generation = new Object();
  private final ConcurrentHashMap<AnswerKey, Signed> answers = new ConcurrentHashMap<>();
  private final NsecEntry[] nsecs = new NsecEntry[NSEC_SLOTS];
  private final AtomicLong onlineSignatures = new AtomicLong();
  private final AtomicLong refusedSignatures = new AtomicLong();
  private final AtomicLong preparedSignatures = new AtomicLong();
  private Map<Name, String> services = Map.of();

  private SignedZone(Zone zone, RrsetSigner signer, Ticker ticker) {
    this.zone = zone;
    this.signer = signer;
    this.budget = new SignatureBudget(signer.policy().onlineSignaturesPerSecond(), ticker);
  }

  /** Signs every static RRset of {@code zone} (in parallel) with {@code signer}'s keys. */
  public static SignedZone sign(Zone zone, RrsetSigner signer, Ticker ticker) {
    return sign(zone, signer, ticker, null);
  }

  /**
   * As {@link #sign(Zone, RrsetSigner, Ticker)}, keeping the signatures {@code previous} (the zone
   * as served before a reload, or null) made of RRsets that did not change, while they are not due
   * for refresh and the keys and policy are the same: a reload re-signs only what it changed.
   */
  public static SignedZone sign(Zone zone, RrsetSigner signer, Ticker ticker, SignedZone previous) {
    SignedZone z = new SignedZone(zone, signer, ticker);
    boolean same =
        previous != null
            && previous.signer.keys().equals(signer.keys())
            && previous.signer.policy().equals(signer.policy());
    z.statics = z.signStatic(same ? previous : null);
    if (same) {
      z.answers.putAll(previous.answers);
    }
    Map<Name, String> services = new java.util.HashMap<>();
    for (Name name : zone.names()) {
      String service = zone.serviceAt(name);
      if (service != null) {
        services.put(name.canonicalize(), service);
      }
    }
    z.services = Map.copyOf(services);
    return z;
  }

  /** The zone this signs (its apex carries the DNSKEY RRset). */
  public Zone zone() {
    return zone;
  }

  /** The signer, its keys and policy. */
  public RrsetSigner signer() {
    return signer;
  }

  /** An identity that changes whenever signatures were refreshed. */
  public Object generation() {
    return generation;
  }

  /** The GSLB service bound to each of the zone's names that has one. */
  public Map<Name, String> services() {
    return services;
  }

  /** GSLB answer RRsets signed before publishing so far. */
  public long preparedSignatures() {
    return preparedSignatures.get();
  }

  /**
   * Signs the GSLB answer RRset {@code records} unless it is signed already; off the query path,
   * without budget. Returns whether it signed.
   */
  public boolean prepare(Name owner, int type, long ttl, List<Record> records) {
    AnswerKey key = AnswerKey.of(owner, type, ttl, records);
    if (answers.containsKey(key)) {
      return false;
    }
    if (answers.size() >= MAX_ANSWER_SETS) {
      answers.clear();
    }
    answers.putIfAbsent(key, signNow(rrset(owner, type, ttl, records)));
    preparedSignatures.incrementAndGet();
    return true;
  }

  private static RRset rrset(Name owner, int type, long ttl, List<Record> records) {
    RRset set = new RRset();
    for (Record r : records) {
      set.addRR(Record.newRecord(owner, type, DClass.IN, ttl, r.rdataToWireCanonical()));
    }
    return set;
  }

  /** Online signatures made so far (denial of existence and late GSLB answers). */
  public long onlineSignatures() {
    return onlineSignatures.get();
  }

  /** Online signatures refused because the budget was spent. */
  public long refusedSignatures() {
    return refusedSignatures.get();
  }

  /** The static signatures of the RRset ({@code owner}, {@code type}); empty when none. */
  public RRSIGRecord[] signatures(Name owner, int type) {
    RRSIGRecord[] all = statics.byOwner.get(owner);
    if (all == null) {
      return NONE;
    }
    int n = 0;
    for (RRSIGRecord r : all) {
      n += r.getTypeCovered() == type ? 1 : 0;
    }
    if (n == all.length) {
      return all;
    }
    RRSIGRecord[] out = new RRSIGRecord[n];
    int i = 0;
    for (RRSIGRecord r : all) {
      if (r.getTypeCovered() == type) {
        out[i++] = r;
      }
    }
    return out;
  }

  /** The static data signed: every RRset but those at and below a cut (DS at a cut excepted). */
  private Static signStatic() {
    return signStatic(null);
  }

  private Static signStatic(SignedZone previous) {
    Instant now = signer.now();
    Map<Name, RRSIGRecord[]> byOwner = new ConcurrentHashMap<>(zone.names().size() * 4 / 3 + 16);
    zone.names().parallelStream()
        .forEach(
            name -> {
              boolean delegated = zone.isDelegated(name);
              boolean cut = delegated && isCut(name);
              if (delegated && !cut) {
                return;
              }
              List<RRSIGRecord> sigs = new ArrayList<>(2);
              for (RRset set : zone.rrsets(name)) {
                if (!cut || set.getType() == Type.DS) {
                  RRSIGRecord[] kept = previous == null ? null : kept(previous, set, now);
                  sigs.addAll(Arrays.asList(kept != null ? kept : signer.sign(set)));
                }
              }
              if (!sigs.isEmpty()) {
                byOwner.put(name, sigs.toArray(NONE));
              }
            });
    Instant earliest =
        byOwner.values().stream()
            .flatMap(Arrays::stream)
            .map(RRSIGRecord::getExpire)
            .min(Comparator.naturalOrder())
            .orElse(now.plus(signer.policy().validity()));
    return new Static(byOwner, earliest.minus(signer.policy().refresh()));
  }

  /** The signatures {@code previous} made of an RRset equal to {@code set}, if still fresh. */
  private RRSIGRecord[] kept(SignedZone previous, RRset set, Instant now) {
    RRSIGRecord[] old = previous.signatures(set.getName(), set.getType());
    if (old.length == 0) {
      return null;
    }
    for (RRSIGRecord r : old) {
      if (r.getOrigTTL() != set.getTTL()
          || !now.isBefore(r.getExpire().minus(signer.policy().refresh()))) {
        return null;
      }
    }
    for (RRset before : previous.zone.rrsets(set.getName())) {
      if (before.getType() == set.getType()) {
        boolean equal =
            before.getTTL() == set.getTTL()
                && new java.util.HashSet<>(before.rrs()).equals(new java.util.HashSet<>(set.rrs()));
        return equal ? old : null;
      }
    }
    return null;
  }

  private boolean isCut(Name name) {
    ZoneNode n = zone.node(name);
    return n != null && n.has(Type.NS) && !name.equals(zone.origin());
  }

  /**
   * Re-signs whatever reaches its refresh time at {@code now}: the whole static data when its
   * earliest signature does, and each GSLB answer RRset whose signatures do. Runs off the query
   * path (the background refresher); returns whether anything was replaced.
   */
  public boolean refreshIfDue() {
    Instant now = signer.now();
    boolean changed = false;
    if (!now.isBefore(statics.refreshAt)) {
      statics = signStatic();
      changed = true;
    }
    for (Map.Entry<AnswerKey, Signed> e : answers.entrySet()) {
      if (!now.isBefore(e.getValue().refreshAt)) {
        e.setValue(signNow(e.getValue().set));
        changed = true;
      }
    }
    if (changed) {
      Arrays.fill(nsecs, null);
      generation = new Object();
    }
    return changed;
  }

  /** The refresh time of the signature due first. */
  public Instant nextRefresh() {
    Instant at = statics.refreshAt;
    for (Signed s : answers.values()) {
      if (s.refreshAt.isBefore(at)) {
        at = s.refreshAt;
      }
    }
    return at;
  }

  /**
   * The signatures of a GSLB answer RRset, {@code records} of {@code owner}/{@code type} with their
   * configured TTL: from the cache filled before publishing, or made now when {@code online} and
   * the budget allows; null when neither.
   */
  public RRSIGRecord[] answer(
      Name owner, int type, long ttl, List<Record> records, boolean online) {
    AnswerKey key = AnswerKey.of(owner, type, ttl, records);
    Signed s = answers.get(key);
    if (s != null) {
      return s.sigs;
    }
    if (online && !take()) {
      return null;
    }
    if (answers.size() >= MAX_ANSWER_SETS) {
      // A pathological spread of answers: start over rather than grow without bound.
      answers.clear();
    }
    s = signNow(rrset(owner, type, ttl, records));
    answers.putIfAbsent(key, s);
    return s.sigs;
  }

  /** How many GSLB answer RRsets have signatures. */
  public int answerSets() {
    return answers.size();
  }

  private Signed signNow(RRset set) {
    RRSIGRecord[] sigs = signer.sign(set);
    Instant refreshAt = signer.now().plus(signer.policy().validity());
    for (RRSIGRecord r : sigs) {
      Instant at = r.getExpire().minus(signer.policy().refresh());
      refreshAt = at.isBefore(refreshAt) ? at : refreshAt;
    }
    return new Signed(set, sigs, refreshAt);
  }

  private boolean take() {
    if (budget.take()) {
      onlineSignatures.incrementAndGet();
      return true;
    }
    refusedSignatures.incrementAndGet();
    return false;
  }

  /**
   * The NSEC record ({@code owner}, {@code next}, {@code types}) with the zone's negative TTL and
   * its signatures: from the cache, or signed now within the budget; null when the budget is spent.
   */
  public SignedNsec nsec(Name owner, Name next, int[] types) {
    int slot = (owner.hashCode() * 31 + Arrays.hashCode(types)) & (NSEC_SLOTS - 1);
    NsecEntry e = nsecs[slot];
    if (e != null
        && e.nsec.getName().equals(owner)
        && e.nsec.getNext().equals(next)
        && Arrays.equals(e.types, types)) {
      return e.signed;
    }
    if (!take()) {
      return null;
    }
    long ttl = zone.negativeSoa().getTTL();
    NSECRecord nsec = new NSECRecord(owner, DClass.IN, ttl, next, types);
    SignedNsec signed = new SignedNsec(nsec, signer.sign(new RRset(nsec)));
    nsecs[slot] = new NsecEntry(nsec, types, signed);
    return signed;
  }

  /** An NSEC record and its signatures. */
  public record SignedNsec(NSECRecord nsec, RRSIGRecord[] sigs) {}

  private record NsecEntry(NSECRecord nsec, int[] types, SignedNsec signed) {}

  private record Static(Map<Name, RRSIGRecord[]> byOwner, Instant refreshAt) {}

  private record Signed(RRset set, RRSIGRecord[] sigs, Instant refreshAt) {}

  /** A GSLB answer RRset: owner, type, configured TTL and its rdata in canonical order. */
  private record AnswerKey(Name owner, int type, long ttl, ByteBuffer rdata) {
    static AnswerKey of(Name owner, int type, long ttl, List<Record> records) {
      List<byte[]> data = new ArrayList<>(records.size());
      int length = 0;
      for (Record r : records) {
        byte[] b = r.rdataToWireCanonical();
        data.add(b);
        length += b.length + 2;
      }
      data.sort(Arrays::compareUnsigned);
      ByteBuffer buf = ByteBuffer.allocate(length);
      for (byte[] b : data) {
        buf.putShort((short) b.length).put(b);
      }
      return new AnswerKey(owner.canonicalize(), type, ttl, buf.flip());
    }
  }
}
