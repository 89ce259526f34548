package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

/**
 * The zone of a question's bytes is the most specific served zone, whichever way the index finds
 * it: a scan of the origins for a few zones, a hash probe per label for many.
 */
class ZoneIndexTest {
  /** Nested, sibling and unrelated zones, more than the index scans. */
  private static final List<String> ORIGINS =
      List.of(
          "test.",
          "example.test.",
          "sub.example.test.",
          "a.b.sub.example.test.",
          "example.org.",
          "x.example.org.",
          "c.",
          "b.c.",
          "a.b.c.",
          "zz.",
          "deep.one.two.three.zz.",
          "xn--bcher-kva.example.");

  private static ZoneIndex index(List<String> origins) throws Exception {
    StringBuilder yaml = new StringBuilder("zones:\n");
    for (String o : origins) {
      yaml.append("  - origin: ")
          .append(o)
          .append("\n    soa: { mname: ns1.nameserver.invalid., rname: h.nameserver.invalid. }\n")
          .append("    ns: [ns1.nameserver.invalid.]\n");
    }
    SluiceConfig config = ConfigLoader.parse(yaml.toString(), "z.yaml", Path.of("."));
    return ZoneCompiler.compile(config, "z.yaml");
  }

  /** Question names: every origin, names below them in mixed case, and names outside them all. */
  private static List<Name> names() throws Exception {
    List<String> texts = new ArrayList<>();
    for (String o : ORIGINS) {
      texts.add(o);
      texts.add("www." + o);
      texts.add("A.b.C.d." + o.toUpperCase());
      texts.add("Www." + o.substring(0, 1).toUpperCase() + o.substring(1));
    }
    texts.addAll(
        List.of(
            "b.sub.example.test.",
            "x.a.b.sub.example.test.",
            "one.two.three.zz.",
            "y.x.example.org.",
            "org.",
            "example.",
            "nothing.invalid.",
            "a.very.long.name.with.many.labels.below.sub.example.test.",
            "."));
    List<Name> out = new ArrayList<>();
    for (String t : texts) {
      out.add(Name.fromString(t));
    }
    return out;
  }

  /** The most specific origin {@code name} is at or below, by brute force. */
  private static Zone expected(ZoneIndex index, Name name) {
    Zone best = null;
    for (Zone z : index.zones()) {
      if (name.subdomain(z.origin())
          && (best == null || z.origin().labels() > best.origin().labels())) {
        best = z;
      }
    }
    return best;
  }

  private static void assertFindsTheMostSpecificZone(ZoneIndex index) throws Exception {
    for (Name name : names()) {
      byte[] wire = name.toWire();
      // At the question's offset in a packet, as the responder passes it.
      byte[] packet = new byte[12 + wire.length + 4];
      System.arraycopy(wire, 0, packet, 12, wire.length);
      Zone want = expected(index, name);
      assertSame(want, index.find(packet, 12, wire.length), "bytes of " + name);
      assertSame(want, index.find(name), "name " + name);
    }
  }

  @Test
  void manyZonesAreFoundByHashAsTheScanWouldFindThem() throws Exception {
    ZoneIndex index = index(ORIGINS);
    assertEquals(12, index.zones().size());
    assertFindsTheMostSpecificZone(index);
  }

  @Test
  void aFewZonesAreScanned() throws Exception {
    assertFindsTheMostSpecificZone(index(ORIGINS.subList(0, 6)));
  }
}
