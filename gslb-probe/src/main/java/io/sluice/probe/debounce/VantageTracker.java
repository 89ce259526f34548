package io.sluice.probe.debounce;

import io.sluice.core.health.Verdict;
import java.util.ArrayDeque;
import java.util.List;

/**
 * Debounces the results one vantage has for one endpoint into that vantage's opinion. Not
 * thread-safe: used only on the probe engine's thread.
 *
 * <p>Two hysteresis levels, one per layer (the deciding layer is the full-link check, or the
 * heartbeat when it is the only check):
 *
 * <pre>
 * level    | goes DOWN/FAILING after        | goes UP after
 * ---------+--------------------------------+----------------------------------------
 * link     | downAfter consecutive failures | upAfter consecutive successes (1 when unknown)
 * beat     | downAfter consecutive failures | upAfter consecutive successes (1 when unknown)
 *
 * opinion = DOWN if link is DOWN; else SUSPECT if beat is FAILING; else link (UP or UNKNOWN)
 * </pre>
 */
public final class VantageTracker {
  /** How many recent results are kept as evidence. */
  public static final int EVIDENCE = 5;

  private final int downAfter;
  private final int upAfter;
  private final boolean hasFullLink;
  private final ArrayDeque<Observation> recent = new ArrayDeque<>(EVIDENCE);
  private Verdict link = Verdict.UNKNOWN;
  private Verdict beat = Verdict.UNKNOWN;
  private int linkFails;
  private int linkOks;
  private int beatFails;
  private int beatOks;
  private long lastAtNanos;
  private boolean seen;

  /** A tracker with the given thresholds; {@code hasFullLink} false makes the heartbeat decide. */
  public VantageTracker(int downAfter, int upAfter, boolean hasFullLink) {
    this.downAfter = downAfter;
    this.upAfter = upAfter;
    this.hasFullLink = hasFullLink;
  }

  /**
   * Records one result and returns true when the deciding check should be re-run at the fast
   * cadence: a heartbeat or deciding check failed and the link is not yet down, or the link is down
   * and a success started a recovery run.
   */
  public boolean record(Layer layer, Observation o, long nowNanos) {
    seen = true;
    lastAtNanos = nowNanos;
    if (recent.size() == EVIDENCE) {
      recent.removeFirst();
    }
    recent.addLast(o);
    if (layer == Layer.FULL_LINK || !hasFullLink) {
      if (o.ok()) {
        linkOks++;
        linkFails = 0;
        if (linkOks >= upAfter || link == Verdict.UNKNOWN) {
          link = Verdict.UP;
        }
        return link == Verdict.DOWN;
      }
      linkFails++;
      linkOks = 0;
      if (linkFails >= downAfter) {
        link = Verdict.DOWN;
      }
      return link != Verdict.DOWN;
    }
    if (o.ok()) {
      beatOks++;
      beatFails = 0;
      if (beatOks >= upAfter || beat == Verdict.UNKNOWN) {
        beat = Verdict.UP;
      }
      return false;
    }
    beatFails++;
    beatOks = 0;
    if (beatFails >= downAfter) {
      beat = Verdict.DOWN;
    }
    return link != Verdict.DOWN;
  }

  /** This vantage's debounced opinion. */
  public Verdict opinion() {
    if (link == Verdict.DOWN) {
      return Verdict.DOWN;
    }
    if (beat == Verdict.DOWN) {
      return Verdict.SUSPECT;
    }
    return link;
  }

  /** How many consecutive results support {@code v} (for breaking a cooldown). */
  public int streakFor(Verdict v) {
    return switch (v) {
      case DOWN -> linkFails;
      case SUSPECT -> beatFails;
      case UP -> Math.min(linkOks, hasFullLink && beat == Verdict.DOWN ? 0 : Integer.MAX_VALUE);
      case UNKNOWN -> 0;
    };
  }

  /** True when a result arrived within {@code staleNanos} of {@code nowNanos}. */
  public boolean fresh(long nowNanos, long staleNanos) {
    return seen && nowNanos - lastAtNanos <= staleNanos;
  }

  /** The most recent results, oldest first. */
  public List<Observation> recent() {
    return List.copyOf(recent);
  }
}
