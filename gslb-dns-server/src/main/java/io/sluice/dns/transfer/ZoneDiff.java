package io.sluice.dns.transfer;

import java.util.List;
import org.xbill.DNS.Record;
import org.xbill.DNS.SOARecord;

/**
 * What changed between two published versions of a zone, as one IXFR sequence carries it (RFC 1995
 * §4): the old SOA, the records removed, the new SOA, the records added.
 */
record ZoneDiff(SOARecord from, List<Record> deleted, SOARecord to, List<Record> added) {

  ZoneDiff {
    deleted = List.copyOf(deleted);
    added = List.copyOf(added);
  }

  /** Records the diff holds, its SOAs included: what keeping it costs. */
  int size() {
    return deleted.size() + added.size() + 2;
  }
}
