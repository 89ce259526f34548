package io.sluice.dns.zone;

import java.util.Collection;
import org.xbill.DNS.Name;

/**
 * Names below a zone's apex that cut the tree under them (delegation points, DNAME owners), asked
 * for the highest one at or above a name. Each ancestor of the name is looked up by its suffix of
 * the name's wire form, with the node table's hash: dnsjava's name hash gives numbered names such
 * as sub10 and sub09 nearby values, and a set of 150,000 delegations hashed that way spent more
 * time probing than a query spends on everything else. Immutable.
 */
final class CutSet {
  private static final CutSet EMPTY = new CutSet(null);

  /** Each cut by its canonical wire form, the value being the cut's own {@link Name}. */
  private final WireNames<Name> table;

  private CutSet(WireNames<Name> table) {
    this.table = table;
  }

  /** The set of {@code cuts}, no two equal (owner names of one zone). */
  static CutSet of(Collection<Name> cuts) {
    return cuts.isEmpty() ? EMPTY : new CutSet(WireNames.ofNames(cuts));
  }

  /** True when there is no cut. */
  boolean isEmpty() {
    return table == null;
  }

  /**
   * The highest cut among the ancestors of {@code name} below the apex (whose name has {@code
   * originLabels} labels), and {@code name} itself when {@code includeSelf}; null when none is.
   */
  Name highestAbove(Name name, int originLabels, boolean includeSelf) {
    if (table == null) {
      return null;
    }
    int below = name.labels() - originLabels;
    if (below <= 0) {
      return null;
    }
    byte[] w = name.toWireCanonical();
    Name highest = null;
    int off = 0;
    for (int strip = 0; strip < below; strip++) {
      if (strip > 0 || includeSelf) {
        int len = w.length - off;
        Name cut = table.get(w, off, len, WireNames.hash(w, off, len));
        if (cut != null) {
          highest = cut;
        }
      }
      off += (w[off] & 0xff) + 1;
    }
    return highest;
  }
}
