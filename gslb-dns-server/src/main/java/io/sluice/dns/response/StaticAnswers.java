package io.sluice.dns.response;

import io.sluice.dns.zone.Resolution;
import io.sluice.dns.zone.Zone;
import io.sluice.dns.zone.ZoneIndex;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/**
 * Response templates for every existing name of every zone, encoded when the zone data is loaded:
 * one per type the name has and one NODATA answer shared by every other type (only the question's
 * type differs, and it is patched per query). Names that follow a CNAME, lie below a delegation or
 * are GSLB services for the asked type are left to the responder's slower paths.
 */
final class StaticAnswers {
  /** Looked up by the question as sent, so a query needs no {@link Name} to find its answer. */
  private final WireNames<Node> nodes;

  private StaticAnswers(WireNames<Node> nodes) {
    this.nodes = nodes;
  }

  static StaticAnswers build(ZoneIndex index) {
    Map<Name, Node> nodes = new HashMap<>();
    for (Zone z : index.zones()) {
      for (Name name : z.names()) {
        if (z.isDelegated(name) || index.find(name) != z) {
          continue;
        }
        Set<Integer> types = z.types(name);
        int[] keys = new int[types.size()];
        Template[] templates = new Template[types.size()];
        int i = 0;
        for (int type : types) {
          keys[i] = type;
          templates[i] = AnswerEncoder.encode(name, type, DClass.IN, z.resolve(name, type));
          i++;
        }
        Template nodata = null;
        if (!z.hasCname(name)) {
          // Type.NULL stands for "any type the name lacks"; the question type is patched later.
          Resolution r = z.resolve(name, Type.NULL);
          nodata = AnswerEncoder.encode(name, Type.NULL, DClass.IN, r);
        }
        nodes.put(name, new Node(z, keys, templates, nodata, z.serviceAt(name)));
      }
    }
    return new StaticAnswers(WireNames.of(nodes));
  }

  /** The precomputed node for {@code name}, or null. */
  Node node(Name name) {
    return nodes.get(name);
  }

  /** The precomputed node for the question name of {@code q}, read from {@code in}; or null. */
  Node node(Query q, byte[] in) {
    return nodes.get(in, Query.NAME_AT, q.nameEnd - Query.NAME_AT, q.nameHash);
  }

  /** The templates of one name. */
  record Node(Zone zone, int[] types, Template[] templates, Template nodata, String service) {

    /** The template for {@code qtype}, or null when it must be computed. */
    Template template(int qtype) {
      for (int i = 0; i < types.length; i++) {
        if (types[i] == qtype) {
          return templates[i];
        }
      }
      if (qtype == Type.ANY) {
        return null;
      }
      return nodata;
    }
  }
}
