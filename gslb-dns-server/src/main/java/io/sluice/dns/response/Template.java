package io.sluice.dns.response;

import java.util.Arrays;
import java.util.List;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Type;

/**
 * One pre-encoded response: {@link #wire} is the whole template (question, answer, authority and
 * every static additional RRset), ready for {@link WireSplicer}. When it does not fit the client's
 * size, or when a target's addresses come from the planner, the response is assembled from the
 * required part (the first {@link #requiredLength} bytes) and the {@link #extras} that fit, in
 * order. Every extra names its owner with a pointer into the required part, never into another
 * extra, so any subset can follow the required part without re-encoding.
 */
final class Template {
  private static final Extra[] NONE = {};
  private static final int[] NO_CUTS = {};

  final byte[] wire;
  final int requiredLength;
  final Extra[] extras;

  /**
   * Where the required part may be cut when it does not fit: triples of (end offset, ANCOUNT,
   * NSCOUNT) after the question and after each whole RRset, in order; empty when unknown.
   */
  private final int[] cuts;

  /** True when some extra needs the planner, so the template can never be sent as is. */
  final boolean dynamic;

  /**
   * For a signed answer: the signing generation it was encoded with, set before the template is
   * cached (the cache's immutable entry publishes it); a stale one is encoded again.
   */
  Object stamp;

  private Template(byte[] wire, int requiredLength, int[] cuts, Extra[] extras) {
    this.wire = wire;
    this.requiredLength = requiredLength;
    this.cuts = cuts;
    this.extras = extras;
    boolean d = false;
    for (Extra e : extras) {
      d |= e instanceof Extra.Service;
    }
    this.dynamic = d;
  }

  /**
   * True when this is an NXDOMAIN template (one question, no answer, the SOA alone in authority,
   * nothing additional) whose names point nowhere before {@code originAt} in the question: then it
   * answers every question name whose origin starts at that offset, since the splicer writes the
   * question name as sent and every pointer lands on the origin or after it.
   */
  boolean negativeFrom(int originAt) {
    byte[] w = wire;
    if (extras.length != 0
        || requiredLength != w.length
        || w.length < 12
        || (w[3] & 0x0f) != Rcode.NXDOMAIN
        || AnswerEncoder.u16(w, 4) != 1
        || AnswerEncoder.u16(w, 6) != 0
        || AnswerEncoder.u16(w, 8) != 1
        || AnswerEncoder.u16(w, 10) != 0) {
      return false;
    }
    int at = nameEnd(w, 12, originAt);
    if (at < 0) {
      return false;
    }
    at = nameEnd(w, at + 4, originAt);
    if (at < 0 || at + 10 > w.length || AnswerEncoder.u16(w, at) != Type.SOA) {
      return false;
    }
    int end = at + 10 + AnswerEncoder.u16(w, at + 8);
    at = nameEnd(w, at + 10, originAt);
    at = at < 0 ? -1 : nameEnd(w, at, originAt);
    return end == w.length && at >= 0 && at + 20 == end;
  }

  /**
   * Where the name at {@code at} in {@code w} ends; -1 when it runs past the end, has a label type
   * other than plain or pointer, or points before {@code originAt}.
   */
  private static int nameEnd(byte[] w, int at, int originAt) {
    while (at < w.length) {
      int len = w[at] & 0xff;
      if (len == 0) {
        return at + 1;
      }
      if ((len & 0xc0) == 0xc0) {
        if (at + 1 >= w.length) {
          return -1;
        }
        int target = (len & 0x3f) << 8 | (w[at + 1] & 0xff);
        return target >= originAt ? at + 2 : -1;
      }
      if ((len & 0xc0) != 0) {
        return -1;
      }
      at += 1 + len;
    }
    return -1;
  }

  /** A template without additional data: sent whole or truncated. */
  static Template of(byte[] wire) {
    return new Template(wire, wire.length, NO_CUTS, NONE);
  }

  /** A template of {@code required} (with its {@link #cuts}) followed by {@code extras}. */
  static Template of(byte[] required, int[] cuts, List<Extra> extras) {
    if (extras.isEmpty()) {
      return new Template(required, required.length, cuts, NONE);
    }
    int length = required.length;
    int count = 0;
    for (Extra e : extras) {
      if (e instanceof Extra.Fixed f) {
        length += f.bytes().length;
        count += f.count();
      }
    }
    byte[] wire = Arrays.copyOf(required, length);
    int at = required.length;
    for (Extra e : extras) {
      if (e instanceof Extra.Fixed f) {
        System.arraycopy(f.bytes(), 0, wire, at, f.bytes().length);
        at += f.bytes().length;
      }
    }
    addArCount(wire, count);
    return new Template(wire, required.length, cuts, extras.toArray(NONE));
  }

  /**
   * The longest run of whole RRsets of the required part that fits {@code room} bytes, with its
   * counts set and no additional records, or null when the cut points are unknown. This is what the
   * reference servers send with TC=1: the RRsets written before the one that did not fit.
   */
  byte[] prefix(int room) {
    int best = -1;
    for (int i = 0; i < cuts.length; i += 3) {
      if (cuts[i] <= room) {
        best = i;
      }
    }
    if (best < 0) {
      return null;
    }
    byte[] out = Arrays.copyOf(wire, cuts[best]);
    out[6] = (byte) (cuts[best + 1] >>> 8);
    out[7] = (byte) cuts[best + 1];
    out[8] = (byte) (cuts[best + 2] >>> 8);
    out[9] = (byte) cuts[best + 2];
    out[10] = 0;
    out[11] = 0;
    return out;
  }

  /** The ARCOUNT of the message in {@code wire}. */
  static int arCount(byte[] wire) {
    return (wire[10] & 0xff) << 8 | (wire[11] & 0xff);
  }

  /** Adds {@code n} to the ARCOUNT of the message in {@code wire}. */
  static void addArCount(byte[] wire, int n) {
    int ar = arCount(wire) + n;
    wire[10] = (byte) (ar >>> 8);
    wire[11] = (byte) ar;
  }

  /**
   * Additional data after the required part. {@code group} numbers the target: when one of its
   * RRsets does not fit, its others are skipped too. {@code required} data that does not fit
   * truncates the response instead (referral glue, RFC 9471).
   */
  sealed interface Extra {
    int group();

    boolean required();

    /** One static RRset of {@code count} records, encoded. */
    record Fixed(byte[] bytes, int count, int group, boolean required) implements Extra {}

    /**
     * The addresses of a GSLB service, chosen per client; {@code owner} is the encoded owner name
     * (a pointer to the target's name in the required part).
     */
    record Service(byte[] owner, String service, int group, boolean required) implements Extra {}
  }
}
