package io.sluice.probe.quorum;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.sluice.core.config.ProbeConfig;
import io.sluice.core.health.Verdict;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class QuorumCombinerTest {
  record Case(String name, Integer quorum, List<VantageOpinion> opinions, Verdict expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  private static VantageOpinion v(Verdict o) {
    return new VantageOpinion("v", o, 3, true, true);
  }

  static Stream<Case> cases() {
    VantageOpinion staleDown = new VantageOpinion("s", Verdict.DOWN, 3, false, true);
    VantageOpinion blindDown = new VantageOpinion("b", Verdict.DOWN, 3, true, false);
    return Stream.of(
        new Case(
            "one of three down",
            null,
            List.of(v(Verdict.DOWN), v(Verdict.UP), v(Verdict.UP)),
            Verdict.UP),
        new Case(
            "two of three down",
            null,
            List.of(v(Verdict.DOWN), v(Verdict.DOWN), v(Verdict.UP)),
            Verdict.DOWN),
        new Case(
            "down and suspect",
            null,
            List.of(v(Verdict.DOWN), v(Verdict.SUSPECT), v(Verdict.UP)),
            Verdict.SUSPECT),
        new Case(
            "stale and blind do not count",
            null,
            List.of(staleDown, blindDown, v(Verdict.UP)),
            Verdict.UP),
        new Case("nobody counts", null, List.of(staleDown, blindDown), Verdict.UNKNOWN),
        new Case(
            "one of two is no majority", null, List.of(v(Verdict.DOWN), v(Verdict.UP)), Verdict.UP),
        new Case(
            "explicit quorum 1",
            1,
            List.of(v(Verdict.DOWN), v(Verdict.UP), v(Verdict.UP)),
            Verdict.DOWN),
        new Case(
            "quorum capped at counting vantages",
            3,
            List.of(v(Verdict.DOWN), staleDown),
            Verdict.DOWN));
  }

  @ParameterizedTest
  @MethodSource("cases")
  void combines(Case c) {
    QuorumCombiner q = new QuorumCombiner(new ProbeConfig("n", null, null, null, c.quorum(), null));
    assertEquals(c.expected(), q.combine(c.opinions()).verdict());
  }
}
