package io.sluice.dns.zone;

import java.util.Arrays;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;

/**
 * The records the served zone read from the previous content of its master file, in file order,
 * with a walk over them as the new content is read: a changed file mostly keeps the old file's
 * lines in their order, so each record read (or each line, by its {@link PlainMasterFile} key) is
 * first compared with the old records where the walk stands, and the served zone's own record is
 * taken when it is the same. A reload then neither holds a record twice nor, for a line that did
 * not change, parses it again.
 */
final class OldRecords {
  /** How far on in the old records a record found by owner is looked for at most. */
  private static final int RESYNC_WINDOW = 1 << 16;

  private final Record[] records;

  /** Each record's line key (see {@link PlainMasterFile}), or null when they are not known. */
  private final long[] keys;

  private int at;

  /**
   * Old records {@link #resync} may still step over in all to find a record further on (at most
   * {@link #RESYNC_WINDOW} at a time), so that a file whose lines were reordered costs no more than
   * a look-up by owner per record.
   */
  private long resyncBudget;

  private OldRecords(Record[] records, long[] keys) {
    this.records = records;
    this.keys = keys;
    this.resyncBudget = 16L * records.length;
  }

  /** No old records: a start, or a zone whose file was not read before. */
  static OldRecords none() {
    return new OldRecords(new Record[0], new long[0]);
  }

  /** A walk over the records of {@code before}, or none when it is null. */
  static OldRecords of(MasterFile before) {
    if (before == null) {
      return none();
    }
    return new OldRecords(before.records(), before.lineKeys());
  }

  /**
   * The old record of the line with key {@code key} where the walk stands (or the one after it,
   * past a removed line), moving the walk past that line; null when neither has that key, or when
   * its owner would not be read so now. {@code lastOwner} is the owner of the record above, which
   * the line inherits when {@code inherits}.
   */
  Record unchanged(long key, Name lastOwner, boolean inherits) {
    if (keys == null) {
      return null;
    }
    int end = Math.min(records.length, at + 2);
    for (int k = at; k < end; k++) {
      if (keys[k] == key) {
        // The same line: the walk goes on past it even when its owner is read otherwise now.
        at = k + 1;
        return ownerAsRead(k, lastOwner, inherits) ? records[k] : null;
      }
    }
    return null;
  }

  /**
   * Whether reading the line of old record {@code k} now gives it its old owner. A line that
   * inherits its owner, or names one equal to the owner above (which the reader then shares, as
   * dnsjava's does, whatever its spelling), takes the owner above: it must be the old record's very
   * name. Any other line reads its owner from itself, as the old reader did, unless that one gave
   * it the owner of the old record above.
   */
  private boolean ownerAsRead(int k, Name lastOwner, boolean inherits) {
    Name owner = records[k].getName();
    if (owner == lastOwner) {
      return true;
    }
    if (inherits || owner.equals(lastOwner)) {
      return false;
    }
    return k == 0 || records[k - 1].getName() != owner;
  }

  /**
   * The old record that is exactly {@code r} where the walk stands (or the one after it), moving
   * the walk past it; null when neither is.
   */
  Record same(Record r) {
    int end = Math.min(records.length, at + 2);
    for (int k = at; k < end; k++) {
      if (exactlySame(records[k], r)) {
        at = k + 1;
        return records[k];
      }
    }
    return null;
  }

  /**
   * Moves the walk past {@code old}, found by its owner, when it is further on: the lines between
   * were removed.
   */
  void resync(Record old) {
    int end = (int) Math.min(records.length, (long) at + RESYNC_WINDOW);
    for (int k = at; k < end && resyncBudget > 0; k++, resyncBudget--) {
      if (records[k] == old) {
        at = k + 1;
        return;
      }
    }
  }

  /**
   * Whether the two records are the same: type, class, TTL, owner spelled the same and data (names
   * in it spelled the same too). Most names are in lower case, which {@link Name#canonicalize}
   * finds without copying; dnsjava's own wire form of a name makes a new name per label.
   */
  static boolean exactlySame(Record a, Record b) {
    if (a.getType() != b.getType()
        || a.getTTL() != b.getTTL()
        || a.getDClass() != b.getDClass()
        || !a.getName().equals(b.getName())) {
      return false;
    }
    if (a instanceof ARecord || a instanceof AAAARecord) {
      // No names in the data: its canonical form is the form given.
      return (a.getName().canonicalize() == a.getName() && b.getName().canonicalize() == b.getName()
              || Arrays.equals(a.getName().toWire(), b.getName().toWire()))
          && Arrays.equals(a.rdataToWireCanonical(), b.rdataToWireCanonical());
    }
    return Arrays.equals(a.toWire(Section.ANSWER), b.toWire(Section.ANSWER));
  }
}
