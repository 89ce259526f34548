package io.sluice.probe.debounce;

import io.sluice.core.config.HealthConfig;
import io.sluice.core.health.Verdict;
import java.util.ArrayDeque;

/**
 * Turns the combined candidate verdict of an endpoint into its published verdict, applying the
 * cooldown and flap damping. Not thread-safe: used only on the probe engine's thread.
 *
 * <pre>
 * situation                                   | outcome
 * --------------------------------------------+----------------------------------------------
 * current is UNKNOWN or restored (stale)      | candidate accepted at once
 * candidate moves the same way as last change | accepted (UP-&gt;SUSPECT-&gt;DOWN is never delayed)
 * candidate flips back within the cooldown    | held; a worsening gets through after
 *                                             | cooldownBreak consecutive failed runs
 *                                             | ("overwhelming evidence"), a recovery never
 * more than flapLimit changes in flapWindow   | held at the worst verdict of the window for
 *                                             | flapHoldDown; only worsening gets through
 * a second change within flapWindow after a  | held again, for twice the previous hold, up
 * hold ended                                  | to flapHoldDownMax
 * </pre>
 */
public final class VerdictGate {
  /** Which rule of the gate shaped an outcome; its text is what status and the audit show. */
  public sealed interface Rule {
    /** The rule in words, as status and audit events show it. */
    String text();

    /** A flip back within the cooldown was held. */
    record Cooldown() implements Rule {
      @Override
      public String text() {
        return "cooldown";
      }
    }

    /** A worsening ended the cooldown early on {@code streak} consecutive failed runs. */
    record CooldownBroken(int streak) implements Rule {
      @Override
      public String text() {
        return "cooldown broken by " + streak + " consecutive results";
      }
    }

    /** A change was held back by a running flap-damping hold. */
    record FlapDamping() implements Rule {
      @Override
      public String text() {
        return "flap damping";
      }
    }

    /** Too many changes in the flap window: a hold of {@code seconds} starts now. */
    record FlapHoldStarted(int changes, long seconds) implements Rule {
      @Override
      public String text() {
        return "flap damping: "
            + changes
            + " changes within the flap window, held for "
            + seconds
            + " s";
      }
    }
  }

  /**
   * The outcome of one proposal: the verdict now, whether it changed, the rule that shaped it (null
   * when the evidence simply applied) and when a held proposal is worth making again.
   */
  public record Outcome(Verdict verdict, boolean changed, Rule rule, long retryAtNanos) {
    /** The rule in words, or null. */
    public String reason() {
      return rule == null ? null : rule.text();
    }

    /** True when this outcome starts a flap-damping hold. */
    public boolean startsFlapHold() {
      return changed && rule instanceof Rule.FlapHoldStarted;
    }
  }

  private final long cooldownNanos;
  private final int cooldownBreak;
  private final int flapLimit;
  private final long windowNanos;
  private final long holdNanos;
  private final long holdMaxNanos;
  private final ArrayDeque<long[]> changes = new ArrayDeque<>();
  private Verdict current;
  private boolean provisional;
  private boolean hasChanged;
  private long lastChangeNanos;
  private boolean lastWorse;
  private long holdUntilNanos = Long.MIN_VALUE;
  private int holds;

  /**
   * A gate starting at {@code initial}; {@code provisional} (a restored or unknown verdict) lets
   * the first evidence through without cooldown.
   */
  public VerdictGate(HealthConfig cfg, Verdict initial, boolean provisional) {
    this.cooldownNanos = cfg.cooldown().toNanos();
    this.cooldownBreak = cfg.cooldownBreak();
    this.flapLimit = cfg.flapLimit();
    this.windowNanos = cfg.flapWindow().toNanos();
    this.holdNanos = cfg.flapHoldDown().toNanos();
    this.holdMaxNanos = cfg.flapHoldDownMax().toNanos();
    this.current = initial;
    this.provisional = provisional || initial == Verdict.UNKNOWN;
  }

  /** The current verdict. */
  public Verdict current() {
    return current;
  }

  /** True while flap damping holds the verdict. */
  public boolean held(long nowNanos) {
    return nowNanos < holdUntilNanos;
  }

  /** When the flap-damping hold ends (meaningful only while {@link #held}). */
  public long holdUntilNanos() {
    return holdUntilNanos;
  }

  /**
   * Proposes {@code candidate}, supported by {@code streak} consecutive agreeing results. A blocked
   * proposal reports when it is worth proposing again ({@code retryAtNanos}, 0 for never).
   */
  public Outcome propose(Verdict candidate, int streak, long nowNanos) {
    if (candidate == Verdict.UNKNOWN || candidate == current) {
      provisional = provisional && candidate == Verdict.UNKNOWN;
      return new Outcome(current, false, null, 0);
    }
    boolean worse = rank(candidate) > rank(current);
    if (held(nowNanos) && !worse) {
      return new Outcome(current, false, new Rule.FlapDamping(), holdUntilNanos);
    }
    Rule reason = null;
    if (!provisional && hasChanged && worse != lastWorse) {
      long until = lastChangeNanos + cooldownNanos;
      if (nowNanos < until) {
        // Only a failure may end a cooldown early: failing over is safe, coming back early is
        // exactly the flapping the cooldown exists to stop.
        if (!worse || cooldownBreak <= 0 || streak < cooldownBreak) {
          return new Outcome(current, false, new Rule.Cooldown(), until);
        }
        reason = new Rule.CooldownBroken(streak);
      }
    }
    if (provisional) {
      // The first verdict from evidence replaces a guess; it is not a flip to cool down from.
      provisional = false;
      current = candidate;
      return new Outcome(current, true, reason, 0);
    }
    hasChanged = true;
    lastChangeNanos = nowNanos;
    lastWorse = worse;
    while (!changes.isEmpty() && changes.peekFirst()[0] < nowNanos - windowNanos) {
      changes.removeFirst();
    }
    changes.addLast(new long[] {nowNanos, rank(candidate)});
    if (nowNanos - holdUntilNanos > windowNanos) {
      holds = 0;
    }
    // After a hold, one change is allowed (a recovery gets through); a second one within the
    // window means the flapping goes on, and the next, longer hold starts at once.
    int limit = holds > 0 ? 1 : flapLimit;
    if (changes.size() > limit && !held(nowNanos)) {
      long worst = rank(candidate);
      for (long[] c : changes) {
        worst = Math.max(worst, c[1]);
      }
      long hold = holdNanos << Math.min(holds, 20);
      holds++;
      holdUntilNanos = nowNanos + Math.min(Math.max(hold, holdNanos), holdMaxNanos);
      int changeCount = changes.size();
      changes.clear();
      current = worst == 2 ? Verdict.DOWN : Verdict.SUSPECT;
      lastWorse = true;
      return new Outcome(
          current,
          true,
          new Rule.FlapHoldStarted(changeCount, (holdUntilNanos - nowNanos) / 1_000_000_000L),
          holdUntilNanos);
    }
    current = candidate;
    return new Outcome(current, true, reason, 0);
  }

  private static int rank(Verdict v) {
    return switch (v) {
      case UP, UNKNOWN -> 0;
      case SUSPECT -> 1;
      case DOWN -> 2;
    };
  }
}
