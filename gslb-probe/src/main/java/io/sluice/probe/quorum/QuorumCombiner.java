package io.sluice.probe.quorum;

import io.sluice.core.config.ProbeConfig;
import io.sluice.core.health.Verdict;
import java.util.List;

/**
 * Combines vantage opinions: an endpoint is {@code DOWN} only when a quorum of eligible vantages
 * (fresh results, healthy probe path) says so, {@code SUSPECT} when a quorum says down or suspect,
 * else {@code UP}. Stale vantages and vantages whose canaries fail do not count at all, so a broken
 * probe path can never vote an endpoint down.
 */
public final class QuorumCombiner {
  private final ProbeConfig config;

  public QuorumCombiner(ProbeConfig config) {
    this.config = config;
  }

  /** The combined opinion. */
  public QuorumResult combine(List<VantageOpinion> opinions) {
    int eligible = 0;
    int down = 0;
    int suspect = 0;
    int up = 0;
    for (VantageOpinion o : opinions) {
      if (!o.eligible()) {
        continue;
      }
      eligible++;
      switch (o.opinion()) {
        case DOWN -> down++;
        case SUSPECT -> suspect++;
        default -> up++;
      }
    }
    if (eligible == 0) {
      return new QuorumResult(Verdict.UNKNOWN, 0, 0, 0, 0, 0, 0);
    }
    int needed = config.quorumOf(eligible);
    Verdict v;
    if (down >= needed) {
      v = Verdict.DOWN;
    } else if (down + suspect >= needed) {
      v = Verdict.SUSPECT;
    } else {
      v = Verdict.UP;
    }
    int streak = Integer.MAX_VALUE;
    for (VantageOpinion o : opinions) {
      boolean agrees =
          v == Verdict.SUSPECT
              ? o.opinion() == Verdict.SUSPECT || o.opinion() == Verdict.DOWN
              : o.opinion() == v;
      if (o.eligible() && agrees) {
        streak = Math.min(streak, o.streak());
      }
    }
    return new QuorumResult(
        v, eligible, needed, down, suspect, up, streak == Integer.MAX_VALUE ? 0 : streak);
  }
}
