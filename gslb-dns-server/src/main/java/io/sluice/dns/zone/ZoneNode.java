package io.sluice.dns.zone;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.xbill.DNS.Name;
import org.xbill.DNS.RRset;
import org.xbill.DNS.Record;
import org.xbill.DNS.Type;

/**
 * One owner name in a zone: its records grouped by type (none for an empty non-terminal), in plain
 * arrays that cost far less per name than RRset objects and maps, and the absolute lower-case name
 * of the GSLB service bound to it, or null. It also carries the responder's encoded answers for the
 * name, made on the first question and published once, so a large zone keeps no encoded answer for
 * names nobody asks for, and a reload drops them together with the zone.
 */
public final class ZoneNode {
  private static final int[] NO_TYPES = {};
  private static final Record[][] NO_SETS = {};
  private static final VarHandle ANSWERS;

  static {
    try {
      ANSWERS = MethodHandles.lookup().findVarHandle(ZoneNode.class, "answers", Object.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final Name name;
  private final int[] types;

  /**
   * The one record of the one type when that is all (most names of a large zone: no array for it),
   * the records of the one type when there is one, else a Record[][] by type.
   */
  private final Object sets;

  private final String service;

  /** Set once by the responder (compare-and-set), so every thread uses the same value. */
  @SuppressWarnings("unused") // through ANSWERS
  private volatile Object answers;

  /** {@code types} may be shared between nodes; neither array is changed afterwards. */
  ZoneNode(Name name, int[] types, Record[][] sets, String service) {
    this.name = name;
    this.types = types.length == 0 ? NO_TYPES : types;
    this.sets =
        sets.length == 1
            ? (sets[0].length == 1 ? sets[0][0] : sets[0])
            : sets.length == 0 ? NO_SETS : sets;
    this.service = service;
  }

  /** A name with one record, of the one type {@code types} holds. */
  ZoneNode(Name name, int[] types, Record record, String service) {
    this.name = name;
    this.types = types;
    this.sets = record;
    this.service = service;
  }

  /** An empty non-terminal, or a name that only a service owns. */
  static ZoneNode empty(Name name, String service) {
    return new ZoneNode(name, NO_TYPES, NO_SETS, service);
  }

  /** The owner name, spelled as the zone data spells it. */
  public Name name() {
    return name;
  }

  /** The records of {@code type} (one RRset, in canonical order), or null. */
  List<Record> get(int type) {
    for (int i = 0; i < types.length; i++) {
      if (types[i] == type) {
        return set(i);
      }
    }
    return null;
  }

  /** Whether the name owns records of {@code type}. */
  public boolean has(int type) {
    for (int t : types) {
      if (t == type) {
        return true;
      }
    }
    return false;
  }

  /** Every RRset of the name, built from its records, in the order its types were first given. */
  List<RRset> rrsets() {
    List<RRset> out = new ArrayList<>(types.length);
    for (int i = 0; i < types.length; i++) {
      RRset set = new RRset();
      set(i).forEach(set::addRR);
      out.add(set);
    }
    return out;
  }

  /** This node's data in a new node, with nothing published by the responder. */
  ZoneNode copy() {
    return new ZoneNode(name, types, all(), service);
  }

  /** This node's data with the records of {@code type} replaced by {@code record} alone. */
  ZoneNode withRecords(int type, Record record) {
    return withRecords(type, new Record[] {record});
  }

  /** This node's data with the records of {@code type} replaced by {@code records}. */
  ZoneNode withRecords(int type, Record[] records) {
    Record[][] sets = all();
    for (int i = 0; i < types.length; i++) {
      if (types[i] == type) {
        sets[i] = records;
        return new ZoneNode(name, types, sets, service);
      }
    }
    int[] more = Arrays.copyOf(types, types.length + 1);
    more[types.length] = type;
    Record[][] moreSets = Arrays.copyOf(sets, sets.length + 1);
    moreSets[sets.length] = records;
    return new ZoneNode(name, more, moreSets, service);
  }

  private Record[][] all() {
    if (sets instanceof Record[][] many) {
      return many.clone();
    }
    return types.length == 0 ? NO_SETS : new Record[][] {one()};
  }

  /**
   * Whether the name holds one A or AAAA record of type {@code qtype} and nothing else, no service
   * either: an answer that costs less to encode than to keep for every name of a large zone.
   */
  public boolean isLoneAddress(int qtype) {
    return sets instanceof Record r
        && r.getType() == qtype
        && (qtype == Type.A || qtype == Type.AAAA)
        && service == null;
  }

  /** Whether the name owns no records. */
  boolean isEmpty() {
    return types.length == 0;
  }

  /** The types that have data here, in the order they were first given. */
  public int[] types() {
    return types.clone();
  }

  /** How many types have data here. */
  int typeCount() {
    return types.length;
  }

  /** The records of the {@code i}-th type, in canonical order. */
  List<Record> set(int i) {
    if (sets instanceof Record single) {
      return Collections.singletonList(single);
    }
    Record[] records = sets instanceof Record[][] all ? all[i] : (Record[]) sets;
    return Collections.unmodifiableList(Arrays.asList(records));
  }

  /** The records of the one type, when there is one. */
  private Record[] one() {
    return sets instanceof Record single ? new Record[] {single} : (Record[]) sets;
  }

  /** The absolute lower-case name of the service bound to this name, or null. */
  public String service() {
    return service;
  }

  /** What the responder published for this name with {@link #publishAnswers}, or null. */
  public Object answers() {
    return ANSWERS.getAcquire(this);
  }

  /**
   * Publishes the responder's encoded answers for this name unless some were published already;
   * returns the ones in place afterwards, so every thread uses one value.
   */
  public Object publishAnswers(Object encoded) {
    Object witness = ANSWERS.compareAndExchange(this, null, encoded);
    return witness == null ? encoded : witness;
  }
}
