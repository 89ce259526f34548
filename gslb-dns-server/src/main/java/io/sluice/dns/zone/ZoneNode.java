package io.sluice.dns.zone;

import java.util.Map;
import org.xbill.DNS.RRset;

/**
 * One owner name in a zone: its RRsets by type (empty for an empty non-terminal) and the absolute
 * lower-case name of the GSLB service bound to it, or null.
 */
record ZoneNode(Map<Integer, RRset> rrsets, String service) {

  ZoneNode {
    rrsets = Map.copyOf(rrsets);
  }

  RRset get(int type) {
    return rrsets.get(type);
  }
}
