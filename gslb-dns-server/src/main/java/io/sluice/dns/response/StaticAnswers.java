package io.sluice.dns.response;

import io.sluice.dns.dnssec.SignedZones;
import io.sluice.dns.zone.Resolution;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneIndex;
import io.sluice.dns.zone.ZoneNode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.List;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * Response templates for the existing names of every zone: one per type the name has and one NODATA
 * answer shared by every other type (only the question's type differs, and it is patched per
 * query). Each is encoded the first time it is asked for and kept with the zone's node (published
 * with one compare-and-set, so every thread then uses the same template), so loading a zone of a
 * million names encodes nothing and memory goes only to names that are asked for. Names that follow
 * a CNAME, lie below a delegation or are GSLB services for the asked type are left to the
 * responder's slower paths.
 */
final class StaticAnswers {
  /** Published for names that have no static answers (below a delegation). */
  private static final Object NONE = new Object();

  private static final VarHandle TEMPLATES = MethodHandles.arrayElementVarHandle(Template[].class);
  private static final VarHandle NODATA;
  private static final VarHandle SIGNED;

  static {
    try {
      NODATA = MethodHandles.lookup().findVarHandle(Node.class, "nodata", Template.class);
      SIGNED = MethodHandles.lookup().findVarHandle(Node.class, "signed", Template[].class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /**
   * Zones up to this many names keep every answer asked for. In a larger zone a name holding one A
   * or AAAA record (most names of a generated zone of a million hosts) is encoded again for each
   * question instead: keeping its answer costs more than encoding it. Kept answers grow the old
   * generation by about 170 bytes per name asked, and publishing each one dirties a card of the old
   * generation, so the collector's marking and card refinement ran on and on while new names kept
   * being asked; a short-lived answer dies in the young generation.
   */
  static final int KEEP_ALL_UP_TO = 100_000;

  private final ZoneIndex index;

  /**
   * The zones above {@link #KEEP_ALL_UP_TO} names that are not signed (a signed answer is kept
   * whatever the zone's size: encoding it needs its signatures, and a negative one signs).
   */
  private final Zone[] encodingLoneAddresses;

  private StaticAnswers(ZoneIndex index, Zone[] encodingLoneAddresses) {
    this.index = index;
    this.encodingLoneAddresses = encodingLoneAddresses;
  }

  /** The answers of {@code index}, whose signed zones are {@code signed}; encodes nothing yet. */
  static StaticAnswers build(ZoneIndex index, SignedZones signed) {
    List<Zone> large = new ArrayList<>();
    for (Zone z : index.zones()) {
      if (z.size() > KEEP_ALL_UP_TO && signed.of(z) == null) {
        large.add(z);
      }
    }
    return new StaticAnswers(index, large.toArray(new Zone[0]));
  }

  /** The node for {@code name}, or null when the name has no static answers. */
  Node node(Name name) {
    Zone z = index.find(name);
    return answers(z, z == null ? null : z.node(name), -1);
  }

  /**
   * The most specific served zone of the question name of {@code q}, read from {@code in} without
   * building a {@link Name}.
   */
  Zone zone(Query q, byte[] in) {
    return index.find(in, Query.NAME_AT, q.nameEnd - Query.NAME_AT);
  }

  /**
   * The node for the question name of {@code q} in {@code z} (from {@link #zone}, null for none),
   * found by {@link Query#nameHash}: the caller keeps the zone, so a name without static answers
   * needs no second zone search.
   */
  Node node(Zone z, Query q, byte[] in) {
    return answers(
        z,
        z == null ? null : z.node(in, Query.NAME_AT, q.nameEnd - Query.NAME_AT, q.nameHash),
        q.qtype);
  }

  /** The answers of {@code n} in {@code z} to a question of {@code qtype} (-1: any). */
  private Node answers(Zone z, ZoneNode n, int qtype) {
    if (n == null) {
      return null;
    }
    Object a = n.answers();
    if (a == null) {
      if (n.isLoneAddress(qtype) && encodesLoneAddresses(z) && !z.isDelegated(n)) {
        // Encoded for this question alone and kept by nobody: see KEEP_ALL_UP_TO.
        return new Node(z, n);
      }
      a = n.publishAnswers(z.isDelegated(n) ? NONE : new Node(z, n));
    }
    return a == NONE ? null : (Node) a;
  }

  private boolean encodesLoneAddresses(Zone z) {
    for (Zone large : encodingLoneAddresses) {
      if (large == z) {
        return true;
      }
    }
    return false;
  }

  /** The templates of one name, each encoded on first use. */
  static final class Node {
    private final Zone zone;
    private final ZoneNode node;
    private final int[] types;
    private final Template[] templates;
    private final boolean hasCname;

    @SuppressWarnings("unused") // through NODATA
    private volatile Template nodata;

    /**
     * The answers to DO queries when the zone is signed, one per type and the last for NODATA; made
     * on the first DO query, so unsigned zones pay nothing for it. Each is replaced when the zone's
     * signatures are refreshed (its {@link Template#stamp} tells the generation).
     */
    @SuppressWarnings("unused") // through SIGNED
    private volatile Template[] signed;

    private Node(Zone zone, ZoneNode node) {
      this.zone = zone;
      this.node = node;
      this.types = node.types();
      this.templates = new Template[types.length];
      this.hasCname = node.has(Type.CNAME);
    }

    Zone zone() {
      return zone;
    }

    /** The name, spelled as the zone data spells it. */
    Name name() {
      return node.name();
    }

    /**
     * The slot of the signed answer to {@code qtype}: the type's own, the shared NODATA slot for a
     * type the name lacks, or -1 when the answer is not kept here (ANY, or a CNAME to follow).
     */
    int signedSlot(int qtype) {
      for (int i = 0; i < types.length; i++) {
        if (types[i] == qtype) {
          return i;
        }
      }
      return qtype == Type.ANY || hasCname ? -1 : types.length;
    }

    /** Whether {@code slot} is the NODATA slot. */
    boolean isNodataSlot(int slot) {
      return slot == types.length;
    }

    /** The signed answer in {@code slot}, or null when none was made yet. */
    Template signed(int slot) {
      Template[] all = (Template[]) SIGNED.getAcquire(this);
      return all == null ? null : (Template) TEMPLATES.getAcquire(all, slot);
    }

    /** Keeps {@code t} (its stamp set) as the signed answer in {@code slot}. */
    void keepSigned(int slot, Template t) {
      Template[] all = (Template[]) SIGNED.getAcquire(this);
      if (all == null) {
        Template[] fresh = new Template[types.length + 1];
        Template[] witness = (Template[]) SIGNED.compareAndExchange(this, null, fresh);
        all = witness == null ? fresh : witness;
      }
      TEMPLATES.setRelease(all, slot, t);
    }

    String service() {
      return node.service();
    }

    /** The template for {@code qtype}, or null when it must be computed. */
    Template template(int qtype) {
      for (int i = 0; i < types.length; i++) {
        if (types[i] == qtype) {
          Template t = (Template) TEMPLATES.getAcquire(templates, i);
          if (t == null) {
            Template fresh = encode(qtype);
            t = (Template) TEMPLATES.compareAndExchange(templates, i, null, fresh);
            t = t == null ? fresh : t;
          }
          return t;
        }
      }
      if (qtype == Type.ANY) {
        return null;
      }
      return nodata();
    }

    /** The NODATA template (question type patched per query), or null at a CNAME. */
    Template nodata() {
      if (hasCname) {
        return null;
      }
      Template t = (Template) NODATA.getAcquire(this);
      if (t == null) {
        // Type.NULL stands for "any type the name lacks"; the question type is patched later.
        Template fresh = encode(Type.NULL);
        t = (Template) NODATA.compareAndExchange(this, null, fresh);
        t = t == null ? fresh : t;
      }
      return t;
    }

    private Template encode(int type) {
      Name name = node.name();
      if (type == Type.A || type == Type.AAAA || type == Type.TXT) {
        // Most first questions of a large zone: an RRset whose data names nothing, answered as is.
        List<Record> plain = zone.plainRRset(node, type);
        if (plain != null) {
          return AnswerEncoder.plain(name, type, plain);
        }
      }
      Resolution r = zone.resolve(name, type);
      return AnswerEncoder.encode(name, type, DClass.IN, r);
    }
  }
}
