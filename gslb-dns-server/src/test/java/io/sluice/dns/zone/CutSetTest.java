package io.sluice.dns.zone;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;

/** The delegation points (and DNAME owners) a zone looks a name's highest cut up in. */
class CutSetTest {
  private static final Name ORIGIN = name("example.test.");

  private static Name name(String s) {
    try {
      return Name.fromString(s);
    } catch (Exception e) {
      throw new IllegalArgumentException(s, e);
    }
  }

  /**
   * The highest of {@code cuts} at or above {@code n} below the apex, by walking every ancestor.
   */
  private static Name bruteForce(Set<Name> cuts, Name n, boolean includeSelf) {
    Name highest = null;
    int below = n.labels() - ORIGIN.labels();
    for (int strip = includeSelf ? 0 : 1; strip < below; strip++) {
      Name candidate = strip == 0 ? n : new Name(n, strip);
      if (cuts.contains(candidate)) {
        highest = candidate;
      }
    }
    return highest;
  }

  @Test
  void theHighestCutAtOrAboveANameIsFoundInAnyLetterCase() {
    CutSet cuts =
        CutSet.of(
            List.of(
                name("sub.example.test."),
                name("deep.sub.example.test."),
                name("x.example.test.")));
    int labels = ORIGIN.labels();
    assertEquals(
        name("sub.example.test."),
        cuts.highestAbove(name("a.deep.sub.example.test."), labels, true));
    assertEquals(
        name("sub.example.test."), cuts.highestAbove(name("DEEP.Sub.EXAMPLE.test."), labels, true));
    assertEquals(
        name("sub.example.test."), cuts.highestAbove(name("sub.example.test."), labels, true));
    assertNull(cuts.highestAbove(name("sub.example.test."), labels, false));
    assertEquals(
        name("sub.example.test."),
        cuts.highestAbove(name("deep.sub.example.test."), labels, false));
    assertNull(cuts.highestAbove(name("www.example.test."), labels, true));
    assertNull(cuts.highestAbove(name("subx.example.test."), labels, true));
    // The apex and names outside the zone have no cut, whatever their suffixes.
    assertNull(cuts.highestAbove(ORIGIN, labels, true));
    assertNull(cuts.highestAbove(name("test."), labels, true));
    assertNull(cuts.highestAbove(name("sub.example.other."), labels, true));
    // The cut's own name comes back, not a copy.
    Name sub = name("sub.example.test.");
    assertSame(
        sub, CutSet.of(List.of(sub)).highestAbove(name("a.sub.example.test."), labels, true));
  }

  @Test
  void agreesWithAWalkOfEveryAncestorOverManyNumberedCuts() {
    // Numbered names are those dnsjava's own name hash puts close together.
    Set<Name> set = new HashSet<>();
    List<Name> list = new ArrayList<>();
    for (int i = 0; i < 20_000; i++) {
      Name n = name("sub" + i + (i % 3 == 0 ? ".dc" + (i % 7) : "") + ".example.test.");
      if (set.add(n)) {
        list.add(n);
      }
    }
    CutSet cuts = CutSet.of(list);
    Random r = new Random(7);
    for (int k = 0; k < 20_000; k++) {
      int i = r.nextInt(30_000);
      String base = "sub" + i + (r.nextBoolean() ? ".dc" + (i % 7) : "") + ".example.test.";
      Name n =
          switch (r.nextInt(4)) {
            case 0 -> name(base);
            case 1 -> name("www." + base);
            case 2 -> name("a.b." + base.toUpperCase(java.util.Locale.ROOT));
            default -> name("dc" + (i % 7) + ".example.test.");
          };
      for (boolean self : new boolean[] {true, false}) {
        assertEquals(
            bruteForce(set, n, self), cuts.highestAbove(n, ORIGIN.labels(), self), n + " " + self);
      }
    }
  }

  @Test
  void anEmptySetHasNoCut() {
    CutSet none = CutSet.of(List.of());
    assertEquals(true, none.isEmpty());
    assertNull(none.highestAbove(name("a.b.example.test."), ORIGIN.labels(), true));
  }
}
