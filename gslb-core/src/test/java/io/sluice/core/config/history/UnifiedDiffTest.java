package io.sluice.core.config.history;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Unified diffs of YAML texts, as {@code sluice ctl config diff} prints them. */
class UnifiedDiffTest {

  @Test
  void showsChangedLinesWithThreeLinesOfContext() {
    String a = "a\nb\nc\nd\ne\nf\ng\nh\n";
    String b = "a\nb\nc\nd\nE\nf\ng\nh\ni\n";
    assertEquals(
        """
        --- v1
        +++ v2
        @@ -2,7 +2,8 @@
         b
         c
         d
        -e
        +E
         f
         g
         h
        +i
        """,
        UnifiedDiff.of("v1", a, "v2", b));
  }

  @Test
  void farApartChangesAreSeparateHunksAndEqualTextsGiveNothing() {
    StringBuilder a = new StringBuilder();
    for (int i = 0; i < 20; i++) {
      a.append("line").append(i).append('\n');
    }
    String b = a.toString().replace("line1\n", "one\n").replace("line18\n", "eighteen\n");
    String diff = UnifiedDiff.of("a", a.toString(), "b", b);
    assertEquals(2, diff.lines().filter(l -> l.startsWith("@@")).count(), diff);
    assertEquals("", UnifiedDiff.of("a", "x\n", "b", "x\n"));
  }
}
