package io.sluice.dns.dnssec;

import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.AnswerPlanner;
import io.sluice.core.spi.Decision;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.ServedZones;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.xbill.DNS.AAAARecord;
import org.xbill.DNS.ARecord;
import org.xbill.DNS.CNAMERecord;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.TextParseException;

/**
 * Signs the GSLB answers of signed zones before the snapshot that serves them is published: a
 * {@link SnapshotStore} preparer asks the planner for every decision each service of a signed zone
 * can give in the new snapshot and signs each distinct answer RRset not signed yet (keyed by owner,
 * type, configured TTL and rdata, so a shift, rollback or ramp step signs only RRsets never served
 * before). It runs on the writer's thread while queries keep reading the previous snapshot.
 */
public final class AnswerSigning {
  private AnswerSigning() {}

  /** Registers the preparer on {@code store} and prepares its current snapshot now. */
  public static void install(SnapshotStore store, AnswerPlanner planner) {
    store.addPreparer(s -> prepare(s, planner));
    prepare(store.current(), planner);
  }

  /** Signs every answer RRset the services of signed zones can give in {@code s}. */
  public static int prepare(Snapshot s, AnswerPlanner planner) {
    ServedZones served = s.artifacts().get(ServedZones.class);
    if (served == null || !served.signed().any() || planner == null) {
      return 0;
    }
    SignedZones signed = served.signed();
    int made = 0;
    for (SignedZone sz : signed.zones()) {
      for (Map.Entry<Name, String> e : sz.services().entrySet()) {
        String service = e.getValue();
        long ttl = signed.serviceTtl(service);
        for (AddressFamily family : AddressFamily.values()) {
          for (Decision d : planner.decisions(s, service, family)) {
            List<Record> set = records(e.getKey(), family, d);
            if (!set.isEmpty()) {
              long configured = ttl >= 0 ? ttl : set.get(0).getTTL();
              made += sz.prepare(e.getKey(), set.get(0).getType(), configured, set) ? 1 : 0;
            }
          }
        }
      }
    }
    return made;
  }

  /** The RRset a decision answers with at {@code owner}, as the responder builds it. */
  static List<Record> records(Name owner, AddressFamily family, Decision d) {
    if (d.outcome() != Decision.Outcome.ANSWER) {
      return List.of();
    }
    long ttl = Math.max(0, Math.min(d.ttl(), Integer.MAX_VALUE));
    if (d.cname() != null) {
      try {
        String target = d.cname().endsWith(".") ? d.cname() : d.cname() + ".";
        return List.of(new CNAMERecord(owner, DClass.IN, ttl, Name.fromString(target)));
      } catch (TextParseException e) {
        return List.of();
      }
    }
    int want = family == AddressFamily.V6 ? 16 : 4;
    List<Record> out = new ArrayList<>();
    for (byte[] a : d.addresses()) {
      if (a.length == want) {
        try {
          InetAddress addr = InetAddress.getByAddress(a);
          out.add(
              want == 4
                  ? new ARecord(owner, DClass.IN, ttl, addr)
                  : new AAAARecord(owner, DClass.IN, ttl, addr));
        } catch (UnknownHostException e) {
          throw new IllegalArgumentException("bad address length " + a.length, e);
        }
      }
    }
    return out;
  }
}
