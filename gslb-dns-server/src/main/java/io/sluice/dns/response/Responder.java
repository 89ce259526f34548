package io.sluice.dns.response;

import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.Decision;
import io.sluice.core.spi.DnsQueryLabels;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.dnssec.SignedZone;
import io.sluice.dns.tap.DnstapOutput;
import io.sluice.dns.transfer.ZoneTransfers;
import io.sluice.dns.zone.Resolution;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneIndex;
import java.lang.ref.SoftReference;
import java.lang.ref.WeakReference;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.DNSOutput;
import org.xbill.DNS.Name;
import org.xbill.DNS.Opcode;
import org.xbill.DNS.RRSIGRecord;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Record;
import org.xbill.DNS.TXTRecord;
import org.xbill.DNS.Type;

/**
 * Turns one query packet into one response packet (or silence). It reads the served data with one
 * volatile load (the current snapshot), answers static names from pre-encoded templates (additional
 * data included, so only the addresses of GSLB services used as NS, MX or SRV targets are decided
 * per query), other zone answers from a bounded cache filled on first use, and GSLB services
 * through the {@link AnswerPlanner}, caching the encoded answer per returned {@link Decision}
 * instance. It never blocks and takes no lock, so event loops call it directly.
 */
public final class Responder {
  /** The order a target's addresses are added in, as for static targets. */
  private static final AddressFamily[] A_THEN_AAAA = {AddressFamily.V4, AddressFamily.V6};

  private static final int BADVERS = 16;
  private static final int BADCOOKIE = 23;
  private static final Name VERSION_BIND = Name.fromConstantString("version.bind.");
  private static final Name VERSION_SERVER = Name.fromConstantString("version.server.");
  private static final Name ID_SERVER = Name.fromConstantString("id.server.");
  private static final Name HOSTNAME_BIND = Name.fromConstantString("hostname.bind.");

  private static final Logger log = LoggerFactory.getLogger(Responder.class);
  private static final Decision PLANNER_FAILED = Decision.of(Decision.Outcome.FAIL, 0);

  /** The cache's type key of shared negative answers: no question type is negative. */
  private static final int SHARED_NEGATIVE = -1;

  /** The cache's name keys of shared negative answers, one per prefix length (0..255). */
  private static final Integer[] PREFIX_KEYS = new Integer[256];

  static {
    for (int i = 0; i < PREFIX_KEYS.length; i++) {
      PREFIX_KEYS[i] = i;
    }
  }

  private final AnswerPlanner planner;
  private volatile boolean plannerFailureLogged;
  private volatile boolean missingZonesLogged;
  // dnstap output; null (the default) costs one read per query.
  private volatile DnstapOutput tap;

  private final GslbMetrics metrics;
  private final SnapshotStore store;
  private final ServedZones fallback;
  private final Ticker ticker;

  /**
   * Per address family, each service's last address answer, served when the planner fails. Keyed by
   * configured service names only, so bounded; kept across reloads, since a planner that fails
   * right after a reload is the case it is for.
   */
  private final List<ConcurrentHashMap<String, LastDecision>> lastDecisions =
      List.of(new ConcurrentHashMap<>(), new ConcurrentHashMap<>());

  /** The zone data of the snapshot queries read last; see {@link #zonesOf}. */
  private LastZones lastZones;

  /** Response rate limiting; its table is sized at start and kept across reloads. */
  private final ResponseRateLimit rateLimit;

  /**
   * A responder following {@code store}: each query reads one snapshot and answers from the zone
   * data published in it ({@link ServedZones}) and asks the planner about that same snapshot, so a
   * reload is seen whole or not at all. {@code fallback} serves snapshots that carry no zone data
   * (a store whose configuration was set by hand rather than through the config publisher); pass
   * null when every snapshot is published with its zones, so no old zone data stays reachable.
   */
  public Responder(
      SnapshotStore store, ServedZones fallback, AnswerPlanner planner, GslbMetrics metrics) {
    this(store, fallback, planner, metrics, Ticker.SYSTEM);
  }

  /**
   * As {@link #Responder(SnapshotStore, ServedZones, AnswerPlanner, GslbMetrics)}, reading time
   * (rate limit buckets, cookie timestamps) from {@code ticker}. The rate limiting table gets the
   * size the current configuration asks for; later reloads keep it.
   */
  public Responder(
      SnapshotStore store,
      ServedZones fallback,
      AnswerPlanner planner,
      GslbMetrics metrics,
      Ticker ticker) {
    this.store = Objects.requireNonNull(store, "store");
    this.fallback = fallback;
    this.planner = planner;
    this.metrics = metrics;
    this.ticker = Objects.requireNonNull(ticker, "ticker");
    this.rateLimit =
        new ResponseRateLimit(
            served(store.current()).settings.rateLimits().tableSize, ticker, metrics);
  }

  /** A responder serving fixed zone data {@code index} with {@code settings}, without a store. */
  public Responder(
      ZoneIndex index, ResponderSettings settings, AnswerPlanner planner, GslbMetrics metrics) {
    this.store = null;
    this.fallback = ServedZones.build(index, settings);
    this.planner = planner;
    this.metrics = metrics;
    this.ticker = Ticker.SYSTEM;
    this.rateLimit = new ResponseRateLimit(settings.rateLimits().tableSize, ticker, metrics);
  }

  /** The zone data being served. */
  public ZoneIndex index() {
    return served().index;
  }

  /** The zone data, settings and signed zones being served. */
  ServedZones served() {
    return served(store == null ? null : store.current());
  }

  /**
   * The zone data of {@code snapshot}. A snapshot published without any (a bug in a writer) is
   * answered from the zone data seen last, while that is still in memory, rather than not at all; a
   * responder without it fails.
   */
  private ServedZones served(Snapshot snapshot) {
    ServedZones z = snapshot == null ? null : snapshot.artifacts().get(ServedZones.class);
    if (z != null) {
      return z;
    }
    if (fallback != null) {
      return fallback;
    }
    // The zone data queries read last (zonesOf keeps it): the previous snapshot's.
    LastZones last = lastZones;
    ServedZones previous = last == null ? null : last.zones.get();
    if (previous == null) {
      throw new IllegalStateException("snapshot " + snapshot.version() + " carries no zone data");
    }
    if (!missingZonesLogged) {
      missingZonesLogged = true;
      log.error(
          "snapshot {} carries no zone data; answering from the previous one (logged once)",
          snapshot.version());
    }
    return previous;
  }

  /**
   * The zone data of {@code snapshot}, remembered for the snapshot seen last: snapshots change on
   * reloads, health and traffic changes, queries arrive far more often, and this saves a map
   * look-up per query. A stale or racing read of the plain field only costs that look-up.
   */
  private ServedZones zonesOf(Snapshot snapshot) {
    LastZones last = lastZones;
    if (last != null && last.snapshot.get() == snapshot) {
      ServedZones z = last.zones.get();
      if (z != null) {
        return z;
      }
    }
    ServedZones z = served(snapshot);
    lastZones = new LastZones(new WeakReference<>(snapshot), new SoftReference<>(z));
    return z;
  }

  /**
   * A snapshot and its zone data, neither held strongly: when no query comes after a reload, a
   * strong hold would keep the replaced snapshot and its zone data alive beside the served ones,
   * and a second reload would build a third copy next to both (a million-name zone is hundreds of
   * megabytes). The zone data is held softly, so it stays for {@link #served}'s fallback until the
   * heap is needed: the JVM clears soft references before it gives up on an allocation.
   */
  private record LastZones(WeakReference<Snapshot> snapshot, SoftReference<ServedZones> zones) {}

  /**
   * Answers the {@code len}-byte query in {@code in} from {@code client}; returns the response, or
   * null when the query must be dropped.
   */
  public byte[] respond(byte[] in, int len, InetAddress client, Transport transport) {
    return respond(in, len, client, transport, null);
  }

  /** Now, left in {@code clock} (when given) as the next query's start. */
  private static long ended(QueryClock clock) {
    long end = System.nanoTime();
    if (clock != null) {
      clock.nanos = end;
    }
    return end;
  }

  /**
   * As {@link #respond(byte[], int, InetAddress, Transport)}, timed from {@code clock} (when the
   * caller's previous answer was ready, or its batch began) instead of a new clock read; leaves the
   * time this answer was ready in {@code clock}. With null, reads the clock at the start.
   */
  public byte[] respond(
      byte[] in, int len, InetAddress client, Transport transport, QueryClock clock) {
    long start = clock == null ? System.nanoTime() : clock.nanos;
    // The one read of shared state per query: zone data and policy state come from this snapshot.
    Snapshot snapshot = store == null ? null : store.current();
    ServedZones s = zonesOf(snapshot);
    Query q = QueryParser.parse(in, len);
    DnstapOutput dnstap = tap;
    if (q == null) {
      if (dnstap != null) {
        dnstap.offer(in, len, null, client, transport == Transport.TCP);
      }
      long end = ended(clock);
      metrics.dnsQuery(
          "",
          DnsQueryLabels.NO_QUESTION,
          DnsQueryLabels.DROPPED,
          transport == Transport.TCP,
          end - start);
      return null;
    }
    ResponderSettings settings = s.settings;
    byte[] ip = null;
    if (q.cookieAt != 0 && settings.cookies() != null) {
      ip = client.getAddress();
      cookie(settings, q, in, ip, transport);
    }
    byte[] out = answer(snapshot, s, q, in, client, transport);
    if (q.tsig) {
      out = ZoneTransfers.sign(snapshot, in, len, out);
    }
    boolean badvers =
        q.status == Query.OK && q.opcode == Opcode.QUERY && q.edns && q.ednsVersion != 0;
    int rcode = badvers ? BADVERS : q.badCookie ? BADCOOKIE : out[3] & 0x0f;
    // TCP proves the client's address, and so does a server cookie: neither is rate limited.
    if (transport == Transport.UDP && settings.rateLimits().enabled && !q.cookieValid) {
      out = rateLimit.apply(settings, q, in, out, rcode, client, ip);
    }
    long end = ended(clock);
    metrics.dnsQuery(
        q.zone == null ? "" : q.zone.originText(),
        q.hasQuestion() ? q.qtype : DnsQueryLabels.NO_QUESTION,
        out == null ? DnsQueryLabels.DROPPED : rcode,
        transport == Transport.TCP,
        end - start,
        end);
    if (dnstap != null) {
      dnstap.offer(in, len, out, client, transport == Transport.TCP);
    }
    return out;
  }

  /**
   * Sends every query and response to {@code output} from now on (null: none); set once at start.
   * The query path only hands them to its bounded queue.
   */
  public void tap(DnstapOutput output) {
    this.tap = output;
  }

  /**
   * Handles the query's COOKIE option (RFC 7873 §5.2): checks its server cookie, and sets the
   * option the response carries: the presented cookie when it is valid, current and young, else a
   * fresh one. Over UDP, with cookies required, a query without a valid server cookie gets
   * BADCOOKIE and that fresh cookie (§5.2.3, §5.2.4); otherwise it is answered as usual.
   */
  private void cookie(
      ResponderSettings settings, Query q, byte[] in, byte[] ip, Transport transport) {
    long now = ticker.currentTimeMillis() / 1000;
    ServerCookies cookies = settings.cookies().cookies();
    int check = cookies.check(in, q.cookieAt, q.cookieLength, ip, now);
    q.cookieValid = check != ServerCookies.INVALID;
    q.cookie =
        cookies.option(in, q.cookieAt, q.cookieLength, ip, now, check == ServerCookies.REUSABLE);
    // Only a query that would otherwise be answered gets BADCOOKIE: FORMERR, NOTIMP and BADVERS
    // take precedence.
    q.badCookie =
        !q.cookieValid
            && settings.requireCookie()
            && transport == Transport.UDP
            && q.status == Query.OK
            && q.opcode == Opcode.QUERY
            && q.ednsVersion == 0;
  }

  private byte[] answer(
      Snapshot snapshot,
      ServedZones s,
      Query q,
      byte[] in,
      InetAddress client,
      Transport transport) {
    int payload = s.settings.udpPayloadSize();
    if (q.nsidRequested) {
      // Pre-encoded at config build: every response kind with an OPT carries it (RFC 5001 §2.2).
      q.nsid = s.settings.nsidOption();
    }
    if (q.status == Query.FORMERR) {
      return WireSplicer.bare(q, in, Rcode.FORMERR, false, payload, 0);
    }
    if (q.opcode != Opcode.QUERY) {
      return WireSplicer.bare(q, in, Rcode.NOTIMP, q.edns, payload, 0);
    }
    if (q.edns && q.ednsVersion != 0) {
      return WireSplicer.bare(q, in, BADVERS & 0x0f, true, payload, BADVERS >>> 4);
    }
    if (q.badCookie) {
      return WireSplicer.bare(q, in, BADCOOKIE & 0x0f, true, payload, BADCOOKIE >>> 4);
    }
    int limit =
        transport == Transport.TCP
            ? 65535
            : q.edns ? Math.max(512, Math.min(q.udpSize, payload)) : 512;
    if (q.qtype == QueryParser.OPT) {
      // The query itself is well formed, its OPT included, so the FORMERR carries one (and NSID).
      return WireSplicer.bare(q, in, Rcode.FORMERR, q.edns, payload, 0);
    }
    if (q.qclass == DClass.CH) {
      return chaos(s, q, in, limit);
    }
    if (q.qclass != DClass.IN || q.qtype == Type.AXFR || q.qtype == Type.IXFR) {
      q.ede = EdnsOptions.EDE_PROHIBITED;
      return WireSplicer.bare(q, in, Rcode.REFUSED, q.edns, payload, 0);
    }
    // Type 0 is reserved (RFC 6895 §3.1): not implemented, as at Knot.
    if (q.qtype == 0 || q.qtype == Type.MAILA || q.qtype == Type.MAILB) {
      return WireSplicer.bare(q, in, Rcode.NOTIMP, q.edns, payload, 0);
    }
    Zone parent = q.qtype == Type.DS ? parentOfApex(s, q.qname()) : null;
    // The zone is searched once, from the wire form, and serves every branch below.
    Zone zone = parent != null ? parent : s.answers.zone(q, in);
    StaticAnswers.Node node = parent == null ? s.answers.node(zone, q, in) : null;
    if (q.dnssecOk && s.signed.any()) {
      SignedZone sz = zone == null ? null : s.signed.of(zone);
      if (sz != null) {
        q.zone = zone;
        return signed(snapshot, s, sz, q, in, client, limit, node);
      }
    }
    if (node != null) {
      q.zone = node.zone();
      if (node.service() != null && (q.qtype == Type.A || q.qtype == Type.AAAA)) {
        // The node stands for the name in the cache key: no Name is built unless encoding.
        return service(
            snapshot, s, q, in, client, limit, node.zone(), node.service(), List.of(), node);
      }
      Template t = node.template(q.qtype);
      if (t != null && node.service() != null && t == node.nodata()) {
        return serviceNodata(snapshot, s, q, in, limit, node);
      }
      if (t != null) {
        return send(snapshot, s, t, q, in, client, limit);
      }
    }
    q.zone = zone;
    if (zone == null) {
      q.ede = EdnsOptions.EDE_NOT_AUTHORITATIVE;
      return WireSplicer.bare(q, in, Rcode.REFUSED, q.edns, payload, 0);
    }
    // Not a name of the zone's own: a wildcard, DNAME or referral answer, or a negative one.
    q.synthesized = true;
    // A name the zone does not have, where nothing can answer or redirect it: one NXDOMAIN per
    // length of the name above the origin serves every such name (a flood of random names costs
    // no Name, no encoding and no cache slot per name).
    int prefix = -1;
    if (node == null && parent == null && zone.plainNegatives()) {
      prefix = q.nameEnd - Query.NAME_AT - zone.originWireLength();
      Template shared = sharedNegative(s, zone, prefix);
      if (shared != null) {
        return send(snapshot, s, shared, q, in, client, limit);
      }
    }
    Name qname = q.qname();
    Template t = s.zoneCache.get(null, qname, q.nameHash, q.qtype);
    if (t == null) {
      Resolution r = zone.resolve(qname, q.qtype);
      if (r.isService()) {
        return service(snapshot, s, q, in, client, limit, zone, r.service(), r.answer(), qname);
      }
      t = AnswerEncoder.encode(qname, q.qtype, DClass.IN, r);
      if (prefix >= 0 && t.negativeFrom(Query.NAME_AT + prefix)) {
        s.zoneCache.put(zone, PREFIX_KEYS[prefix], prefix, SHARED_NEGATIVE, t);
      } else {
        s.zoneCache.put(null, qname, q.nameHash, q.qtype, t);
      }
    }
    return send(snapshot, s, t, q, in, client, limit);
  }

  /**
   * The NXDOMAIN of {@code zone} for names {@code prefix} wire bytes longer than its origin, when
   * one is cached ({@link Template#negativeFrom}); null otherwise.
   */
  static Template sharedNegative(ServedZones s, Zone zone, int prefix) {
    return s.zoneCache.get(zone, PREFIX_KEYS[prefix], prefix, SHARED_NEGATIVE);
  }

  /**
   * The answer of a signed zone to a query with the DO bit: encoded with its signatures once per
   * (name, type) and signing generation, then served from the cache like any other template. Static
   * signatures exist before the zone is published; only denial-of-existence NSEC records are signed
   * here, within the zone's budget (see {@link SignedAnswers}).
   */
  private byte[] signed(
      Snapshot snapshot,
      ServedZones s,
      SignedZone sz,
      Query q,
      byte[] in,
      InetAddress client,
      int limit,
      StaticAnswers.Node node) {
    if (node != null && node.service() != null && (q.qtype == Type.A || q.qtype == Type.AAAA)) {
      return signedService(snapshot, s, sz, q, in, client, limit, node.service(), List.of(), node);
    }
    q.synthesized = node == null;
    Object generation = sz.generation();
    int slot = node == null ? -1 : node.signedSlot(q.qtype);
    if (slot >= 0) {
      // A name of the zone's own: kept with its node, found without building a Name.
      Template t = node.signed(slot);
      if (t == null || t.stamp != generation) {
        int type = node.isNodataSlot(slot) ? Type.NULL : q.qtype;
        Name name = node.name();
        t = SignedAnswers.encode(sz, name, type, sz.zone().resolve(name, type), null, null);
        if (t == null) {
          return signingRefused(s, q, in);
        }
        t.stamp = generation;
        node.keepSigned(slot, t);
      }
      return send(snapshot, s, t, q, in, client, limit);
    }
    Name qname = q.qname();
    Template t = s.signedCache.get(generation, qname, q.nameHash, q.qtype);
    if (t == null) {
      Resolution r = sz.zone().resolve(qname, q.qtype);
      if (r.isService()) {
        return signedService(snapshot, s, sz, q, in, client, limit, r.service(), r.answer(), qname);
      }
      t = SignedAnswers.encode(sz, qname, q.qtype, r, null, null);
      if (t == null) {
        return signingRefused(s, q, in);
      }
      s.signedCache.put(generation, qname, q.nameHash, q.qtype, t);
    }
    return send(snapshot, s, t, q, in, client, limit);
  }

  /**
   * A GSLB answer of a signed zone: the planner's decision with the signatures of its RRset, made
   * before the snapshot was published (see {@code AnswerSigning}); the RRSIG keeps the configured
   * TTL as its Original TTL while the records and the RRSIG carry the TTL served now, so a shift
   * needs no new signature.
   */
  private byte[] signedService(
      Snapshot snapshot,
      ServedZones s,
      SignedZone sz,
      Query q,
      byte[] in,
      InetAddress client,
      int limit,
      String service,
      List<Record> chain,
      Object nameKey) {
    AddressFamily family = q.qtype == Type.AAAA ? AddressFamily.V6 : AddressFamily.V4;
    Decision d = plan(snapshot, service, family, clientOf(q, client));
    Object generation = sz.generation();
    Template t = s.signedDecisionCache.get(d, nameKey, q.nameHash, q.qtype);
    if (t == null || t.stamp != generation) {
      Resolution r = resolve(sz.zone(), q, d, chain);
      RRSIGRecord[] sigs = null;
      if (r.rcode() == Rcode.NOERROR && r.answer().size() > chain.size()) {
        List<Record> set = r.answer().subList(chain.size(), r.answer().size());
        long configured = s.signed.serviceTtl(service);
        Record first = set.get(0);
        sigs =
            sz.answer(
                first.getName(),
                first.getType(),
                configured >= 0 ? configured : first.getTTL(),
                set,
                true);
        if (sigs == null) {
          return signingRefused(s, q, in);
        }
      }
      t = SignedAnswers.encode(sz, q.qname(), q.qtype, r, service, sigs);
      if (t == null) {
        return signingRefused(s, q, in);
      }
      t.stamp = generation;
      s.signedDecisionCache.put(d, nameKey, q.nameHash, q.qtype, t);
    }
    int scope = q.ecsFamily != 0 ? Math.min(d.scopePrefix(), q.ecsFamily == 1 ? 32 : 128) : 0;
    q.ede = servfailReason(s, d, service);
    return WireSplicer.splice(t.wire, q, in, limit, s.settings.udpPayloadSize(), 0, scope);
  }

  /**
   * The answer when a signature had to be made online and the zone's budget is spent: SERVFAIL with
   * an Extended DNS Error saying so. An unsigned answer would be bogus, and a resolver retries
   * SERVFAIL elsewhere or later; the budget is what bounds a flood of random names.
   */
  private static byte[] signingRefused(ServedZones s, Query q, byte[] in) {
    q.ede = EDE_SIGNING_BUDGET;
    return WireSplicer.bare(q, in, Rcode.SERVFAIL, q.edns, s.settings.udpPayloadSize(), 0);
  }

  private static final byte[] EDE_SIGNING_BUDGET =
      EdnsOptions.ede(0, "online signing budget spent; retry later");

  /**
   * The served zone above {@code qname} when {@code qname} is the apex of another served zone: DS
   * records live on the parent side of a cut (RFC 4035 §3.1.4.1), so a DS question at a child's
   * apex is answered from the parent when this server has it too, as Knot answers it.
   */
  private static Zone parentOfApex(ServedZones s, Name qname) {
    Zone z = s.index.find(qname);
    if (z == null || !z.origin().equals(qname) || qname.labels() <= 1) {
      return null;
    }
    return s.index.find(new Name(qname, 1));
  }

  /**
   * Sends {@code t} whole when it fits and needs no planner. Otherwise sends its required part and,
   * in order, the additional RRsets that fit, skipping the rest of a target once one of its RRsets
   * does not (as the reference servers do): optional data never sets TC, required glue that does
   * not fit does (RFC 9471). A required part that does not fit is cut after the last whole RRset
   * that fits, with TC=1. A GSLB service used as a target gets the addresses this client would get
   * for that name.
   */
  private byte[] send(
      Snapshot snapshot,
      ServedZones s,
      Template t,
      Query q,
      byte[] in,
      InetAddress client,
      int limit) {
    int payload = s.settings.udpPayloadSize();
    int room = limit - WireSplicer.optLength(q);
    if (!t.dynamic && t.wire.length <= room) {
      return WireSplicer.splice(t.wire, q, in, limit, payload, 0, 0);
    }
    if (t.requiredLength > room) {
      byte[] part = t.prefix(room);
      return part == null
          ? WireSplicer.truncated(t.wire, q, in, payload)
          : WireSplicer.withTc(part, q, in, payload, 0);
    }
    DNSOutput out = new DNSOutput(Math.min(room, t.wire.length + 64));
    out.writeByteArray(t.wire, 0, t.requiredLength);
    int count = 0;
    int skipped = -1;
    int scope = 0;
    boolean truncated = false;
    for (Template.Extra e : t.extras) {
      if (e.group() == skipped) {
        continue;
      }
      boolean fits = true;
      if (e instanceof Template.Extra.Fixed f) {
        fits = out.current() + f.bytes().length <= room;
        if (fits) {
          out.writeByteArray(f.bytes());
          count += f.count();
        }
      } else if (e instanceof Template.Extra.Service v) {
        for (AddressFamily family : A_THEN_AAAA) {
          Decision d = plan(snapshot, v.service(), family, clientOf(q, client));
          // A CNAME decision is not followed: additional data never chases aliases (RFC 2181
          // §10.3).
          if (d.outcome() != Decision.Outcome.ANSWER || d.cname() != null) {
            continue;
          }
          int type = family == AddressFamily.V6 ? Type.AAAA : Type.A;
          long ttl = Math.max(0, Math.min(d.ttl(), Integer.MAX_VALUE));
          // Written in place and taken back when it does not fit: no per-query RRset copy.
          int mark = out.current();
          int n = AnswerEncoder.addresses(out, v.owner(), type, ttl, d.addresses());
          if (n == 0) {
            continue;
          }
          fits = out.current() <= room;
          if (!fits) {
            out.jump(mark);
            break;
          }
          count += n;
          scope = Math.max(scope, d.scopePrefix());
        }
      }
      if (!fits) {
        // Required glue that does not fit sets TC (RFC 9471); what fits is still sent.
        truncated |= e.required();
        skipped = e.group();
      }
    }
    byte[] wire = out.toByteArray();
    // The required part carries no additional records of its own.
    Template.addArCount(wire, count - Template.arCount(wire));
    int ecsScope = q.ecsFamily != 0 ? Math.min(scope, q.ecsFamily == 1 ? 32 : 128) : 0;
    return truncated
        ? WireSplicer.withTc(wire, q, in, payload, ecsScope)
        : WireSplicer.splice(wire, q, in, limit, payload, 0, ecsScope);
  }

  private byte[] service(
      Snapshot snapshot,
      ServedZones s,
      Query q,
      byte[] in,
      InetAddress client,
      int limit,
      Zone zone,
      String service,
      List<Record> chain,
      Object nameKey) {
    AddressFamily family = q.qtype == Type.AAAA ? AddressFamily.V6 : AddressFamily.V4;
    Decision d = plan(snapshot, service, family, clientOf(q, client));
    Template t = s.decisionCache.get(d, nameKey, q.nameHash, q.qtype);
    if (t == null) {
      t = AnswerEncoder.encode(q.qname(), q.qtype, DClass.IN, resolve(zone, q, d, chain));
      s.decisionCache.put(d, nameKey, q.nameHash, q.qtype, t);
    }
    int scope = q.ecsFamily != 0 ? Math.min(d.scopePrefix(), q.ecsFamily == 1 ? 32 : 128) : 0;
    if (q.edns) {
      q.ede = servfailReason(s, d, service);
    }
    return WireSplicer.splice(t.wire, q, in, limit, s.settings.udpPayloadSize(), 0, scope);
  }

  /**
   * The Extended DNS Error (RFC 8914) telling an operator why a service name got SERVFAIL; null for
   * the other outcomes. RFC 8914 has no code for "every pool is down", so it is 0 (Other) with text
   * naming the service, which is what the operator greps the logs and the API for. Encoded once per
   * service and configuration: during an outage every query of the service takes this path.
   */
  private static byte[] servfailReason(ServedZones s, Decision d, String service) {
    if (d == PLANNER_FAILED) {
      return EdnsOptions.EDE_PLANNER_FAILED;
    }
    return switch (d.outcome()) {
      case FAIL -> cachedEde(s.noPoolEde, service, "no usable pool for ");
      case UNKNOWN_SERVICE -> cachedEde(s.unknownServiceEde, service, "unknown service ");
      case ANSWER, EMPTY -> null;
    };
  }

  private static byte[] cachedEde(
      ConcurrentHashMap<String, byte[]> cache, String service, String text) {
    byte[] ede = cache.get(service);
    return ede != null ? ede : cache.computeIfAbsent(service, k -> EdnsOptions.ede(0, text + k));
  }

  /**
   * The client a planner decision is for: the ECS subnet when the query carried one. The parser has
   * checked that its address has no bit set beyond the source prefix, so it is used as it is.
   */
  private static ClientInfo clientOf(Query q, InetAddress client) {
    return q.ecsFamily != 0
        ? ClientInfo.ofMaskedSubnet(q.ecsAddress, q.ecsSource)
        : ClientInfo.ofResolver(client.getAddress());
  }

  private Decision plan(Snapshot snapshot, String service, AddressFamily family, ClientInfo who) {
    Decision d;
    try {
      d =
          snapshot == null
              ? planner.plan(service, family, who)
              : planner.plan(snapshot, service, family, who);
    } catch (RuntimeException e) {
      return lastDecision(service, family, e);
    }
    if (d.outcome() == Decision.Outcome.ANSWER) {
      remember(snapshot, service, family, d);
    }
    return d;
  }

  /**
   * Keeps {@code d} as the service's answer to fall back to. At most one write per service and
   * family per snapshot version (a health or traffic change), so the query path mostly reads: the
   * kept answer is one some client got from that version, which is as fresh as it can be.
   */
  private void remember(Snapshot snapshot, String service, AddressFamily family, Decision d) {
    ConcurrentHashMap<String, LastDecision> last = lastDecisions.get(family.ordinal());
    LastDecision known = last.get(service);
    long version = snapshot == null ? -1 : snapshot.version();
    if (known == null || known.version != version || (snapshot == null && known.decision != d)) {
      last.put(service, new LastDecision(version, d));
    }
  }

  /**
   * The answer for a service whose planner failed: the last address answer it gave, so a planner
   * bug or a snapshot missing the service's state keeps the name answered as it was; SERVFAIL
   * (resolvers then try another server) only when the service never answered since start.
   */
  private Decision lastDecision(String service, AddressFamily family, RuntimeException e) {
    LastDecision known = lastDecisions.get(family.ordinal()).get(service);
    if (!plannerFailureLogged) {
      plannerFailureLogged = true;
      log.warn(
          "planner failed for {}; answering {} (logged once)",
          service,
          known != null ? "its last answer" : "SERVFAIL",
          e);
    }
    metrics.policyEvent(service, known != null ? "last-decision" : "planner-failed");
    return known != null ? known.decision : PLANNER_FAILED;
  }

  /** A service's last address answer and the snapshot version it was decided in. */
  private record LastDecision(long version, Decision decision) {}

  /**
   * NODATA for another type at a service name. Its SOA TTL is capped to the TTL the service serves
   * now: during a shift that TTL is short, and a resolver must not cache "no such type" for longer
   * than the addresses it may have to drop.
   */
  private byte[] serviceNodata(
      Snapshot snapshot, ServedZones s, Query q, byte[] in, int limit, StaticAnswers.Node node) {
    Zone zone = node.zone();
    long ttl;
    try {
      ttl =
          snapshot == null
              ? planner.servedTtl(node.service())
              : planner.servedTtl(snapshot, node.service());
    } catch (RuntimeException e) {
      ttl = -1; // a failing planner leaves the zone's own negative TTL, as for an unknown one
    }
    int payload = s.settings.udpPayloadSize();
    if (ttl < 0 || ttl >= zone.negativeSoa().getTTL()) {
      return WireSplicer.splice(node.nodata().wire, q, in, limit, payload, 0, 0);
    }
    // One template per (name, capped TTL); the question type is patched per query.
    Object owner = s.ttlOwners.computeIfAbsent(ttl, k -> new Object());
    Template t = s.zoneCache.get(owner, node, q.nameHash, Type.NULL);
    if (t == null) {
      Resolution base = zone.resolve(q.qname(), Type.NULL);
      Resolution r =
          new Resolution(
              base.rcode(),
              base.authoritative(),
              base.answer(),
              List.of(zone.negativeSoa(ttl)),
              base.additional(),
              null);
      t = AnswerEncoder.encode(q.qname(), Type.NULL, DClass.IN, r);
      s.zoneCache.put(owner, node, q.nameHash, Type.NULL, t);
    }
    return WireSplicer.splice(t.wire, q, in, limit, payload, 0, 0);
  }

  /** The records of a planner decision, after the CNAME chain that led to the service. */
  private static Resolution resolve(Zone zone, Query q, Decision d, List<Record> chain) {
    Name owner =
        chain.isEmpty()
            ? q.qname().canonicalize()
            : ((CNAMERecord) chain.get(chain.size() - 1)).getTarget();
    long ttl = Math.max(0, Math.min(d.ttl(), Integer.MAX_VALUE));
    List<Record> answer = new ArrayList<>(chain);
    switch (d.outcome()) {
      case ANSWER -> {
        if (d.cname() != null) {
          answer.add(
              new CNAMERecord(owner, DClass.IN, ttl, Name.fromConstantString(absolute(d.cname()))));
        } else {
          int want = q.qtype == Type.AAAA ? 16 : 4;
          for (byte[] a : d.addresses()) {
            if (a.length == want) {
              answer.add(addressRecord(owner, ttl, a));
            }
          }
        }
      }
      case EMPTY -> {}
      default -> {
        return new Resolution(Rcode.SERVFAIL, false, chain, List.of(), List.of(), null);
      }
    }
    if (answer.size() == chain.size()) {
      // NODATA for the service's name: cache "no such address" no longer than the addresses.
      return new Resolution(
          Rcode.NOERROR, true, answer, List.of(zone.negativeSoa(ttl)), List.of(), null);
    }
    return new Resolution(Rcode.NOERROR, true, answer, List.of(), List.of(), null);
  }

  private static Record addressRecord(Name owner, long ttl, byte[] a) {
    try {
      InetAddress addr = InetAddress.getByAddress(a);
      return a.length == 4
          ? new ARecord(owner, DClass.IN, ttl, addr)
          : new AAAARecord(owner, DClass.IN, ttl, addr);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("bad address length " + a.length, e);
    }
  }

  private static String absolute(String name) {
    return name.endsWith(".") ? name : name + ".";
  }

  /** CHAOS-class identity queries, answered only when configured (RFC 4892). */
  private static byte[] chaos(ServedZones s, Query q, byte[] in, int limit) {
    int payload = s.settings.udpPayloadSize();
    Name qname = q.qname();
    String text = null;
    if (qname.equals(VERSION_BIND) || qname.equals(VERSION_SERVER)) {
      text = s.settings.chaosVersion();
    } else if (qname.equals(ID_SERVER) || qname.equals(HOSTNAME_BIND)) {
      text = s.settings.chaosId();
    }
    if (text == null || (q.qtype != Type.TXT && q.qtype != Type.ANY)) {
      q.ede = EdnsOptions.EDE_PROHIBITED;
      return WireSplicer.bare(q, in, Rcode.REFUSED, q.edns, payload, 0);
    }
    Record txt = new TXTRecord(qname.canonicalize(), DClass.CH, 0, text);
    Resolution r = new Resolution(Rcode.NOERROR, true, List.of(txt), List.of(), List.of(), null);
    byte[] t = AnswerEncoder.encode(qname, q.qtype, DClass.CH, r).wire;
    return WireSplicer.splice(t, q, in, limit, payload, 0, 0);
  }
}
