package io.sluice.core.traffic;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import io.sluice.core.control.SwitchRecord;
import io.sluice.core.state.Shift;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * A stepwise move in progress: either a {@link Shift} taken from {@code startPercent} to {@code
 * endPercent}, or weights taken from {@code fromWeights} to {@code toWeights}, along {@code steps}
 * (progress percentages ending at 100). {@code index} is the step in effect (-1: none yet), {@code
 * lastGood} the last step whose window passed with its gates holding. Built with {@link #weights}
 * or {@link #shift}; the JSON names of {@link Kind} and {@link State} are part of the persisted
 * state and of the API.
 */
public record Ramp(
    String id,
    Kind kind,
    String trigger,
    Shift shift,
    Map<String, Integer> fromWeights,
    Map<String, Integer> toWeights,
    double startPercent,
    double endPercent,
    List<Integer> steps,
    int index,
    int lastGood,
    long stepSinceMillis,
    long windowMillis,
    State state,
    boolean confirmEachStep,
    SwitchRecord record) {

  /** What a ramp moves, and the switch-record trigger it is recorded under. */
  public enum Kind implements WireName {
    WEIGHTS("weights", "weights"),
    MOVE("move", "maintenance"),
    FAILOVER("failover", "failover"),
    FAILBACK("failback", "failback");

    private final String wire;
    private final String trigger;

    Kind(String wire, String trigger) {
      this.wire = wire;
      this.trigger = trigger;
    }

    @Override
    @JsonValue
    public String wire() {
      return wire;
    }

    /** The trigger of the switch records of this kind of ramp. */
    public String trigger() {
      return trigger;
    }

    @JsonCreator
    static Kind of(String wire) {
      return WireName.parse(values(), wire, "ramp kind");
    }

    @Override
    public String toString() {
      return wire;
    }
  }

  /**
   * Where a ramp stands: advancing, waiting for an operator's confirmation of its next step, or
   * paused after a gate failure until an operator confirms (retry) or rolls back.
   */
  public enum State implements WireName {
    RUNNING("running"),
    AWAITING_CONFIRM("awaiting-confirm"),
    PAUSED("paused");

    private final String wire;

    State(String wire) {
      this.wire = wire;
    }

    @Override
    @JsonValue
    public String wire() {
      return wire;
    }

    @JsonCreator
    static State of(String wire) {
      return WireName.parse(values(), wire, "ramp state");
    }

    @Override
    public String toString() {
      return wire;
    }
  }

  public Ramp {
    fromWeights = fromWeights == null ? null : Map.copyOf(fromWeights);
    toWeights = toWeights == null ? null : Map.copyOf(toWeights);
    steps = List.copyOf(steps);
  }

  /** A ramp of weights from {@code from} to {@code to}, not yet at its first step. */
  static Ramp weights(
      String id,
      Map<String, Integer> from,
      Map<String, Integer> to,
      List<Integer> steps,
      long now,
      long windowMillis,
      SwitchRecord record) {
    return new Ramp(
        id,
        Kind.WEIGHTS,
        Kind.WEIGHTS.trigger(),
        null,
        from,
        to,
        0,
        100,
        steps,
        -1,
        -1,
        now,
        windowMillis,
        State.RUNNING,
        false,
        record);
  }

  /**
   * A ramp taking {@code shift} from {@code startPercent} to {@code endPercent}, not yet at its
   * first step; {@code confirmEachStep} asks an operator before every step after the first.
   */
  static Ramp shift(
      String id,
      Kind kind,
      Shift shift,
      double startPercent,
      double endPercent,
      List<Integer> steps,
      long now,
      long windowMillis,
      boolean confirmEachStep,
      SwitchRecord record) {
    return new Ramp(
        id,
        kind,
        kind.trigger(),
        shift,
        null,
        null,
        startPercent,
        endPercent,
        steps,
        -1,
        -1,
        now,
        windowMillis,
        State.RUNNING,
        confirmEachStep,
        record);
  }

  /** Progress (0..100) at step {@code i}; step -1 is the start. */
  public double progress(int i) {
    return i < 0 ? 0 : steps.get(i);
  }

  /** The shift percentage at step {@code i}: monotonic in {@code i}, so cohorts never flip. */
  public double shiftPercent(int i) {
    return startPercent + (endPercent - startPercent) * progress(i) / 100.0;
  }

  /** What step {@code i} means to people: the shift percentage, or progress for a weights ramp. */
  public double percent(int i) {
    return shift != null ? shiftPercent(i) : progress(i);
  }

  /** The shift in effect now, or null for a weights ramp. */
  public Shift currentShift() {
    return shift == null ? null : shift.at(shiftPercent(index));
  }

  /** The weights in effect at step {@code i}, or null for a shift ramp. */
  public Map<String, Integer> weightsAt(int i) {
    if (toWeights == null) {
      return null;
    }
    Set<String> pools = new HashSet<>(fromWeights.keySet());
    pools.addAll(toWeights.keySet());
    Map<String, Integer> out = new HashMap<>();
    double f = progress(i) / 100.0;
    for (String p : pools) {
      int a = fromWeights.getOrDefault(p, 0);
      int b = toWeights.getOrDefault(p, 0);
      out.put(p, (int) Math.round(a + (b - a) * f));
    }
    return out;
  }

  /** The pools that receive more traffic as this ramp advances: the ones its gates watch. */
  public List<String> targets() {
    if (shift != null) {
      return endPercent >= startPercent ? shift.to() : shift.from();
    }
    List<String> out = new ArrayList<>();
    toWeights.forEach(
        (p, w) -> {
          if (w > fromWeights.getOrDefault(p, 0)) {
            out.add(p);
          }
        });
    out.sort(null);
    return out;
  }

  /**
   * The share of traffic at the {@link #targets()} at step {@code i} (0..100): the shift's percent
   * for a failover or move, what has gone back for a failback, the progress for weights.
   */
  public double targetPercent(int i) {
    if (shift == null) {
      return progress(i);
    }
    return endPercent >= startPercent ? shiftPercent(i) : 100 - shiftPercent(i);
  }

  /**
   * What this ramp does, as messages and the CLI say it: "failover to us-east-1", "failback to
   * eu-west-1", "move to us-east-1 (eu-west clients)", "weights ramp to us-east-1".
   */
  public String describe() {
    List<String> t = targets();
    String what =
        (shift == null ? "weights ramp" : kind.wire())
            + (t.isEmpty() ? "" : " to " + String.join(", ", t));
    return shift != null && shift.region() != null
        ? what + " (" + shift.region() + " clients)"
        : what;
  }

  /** A percentage as people read it: "25 %", "12.5 %". */
  public static String percentText(double p) {
    double r = Math.round(p * 10) / 10.0;
    return (r == Math.rint(r) ? String.valueOf((long) r) : String.valueOf(r)) + " %";
  }

  /** Where step {@code i} stands: "25 % (step 1/3)". */
  String stepText(int i) {
    return percentText(targetPercent(i)) + " (step " + (i + 1) + "/" + steps.size() + ")";
  }

  public boolean lastStep() {
    return index == steps.size() - 1;
  }

  Ramp at(int newIndex, long now) {
    return new Ramp(
        id,
        kind,
        trigger,
        shift,
        fromWeights,
        toWeights,
        startPercent,
        endPercent,
        steps,
        newIndex,
        lastGood,
        now,
        windowMillis,
        state,
        confirmEachStep,
        record);
  }

  Ramp withLastGood(int good) {
    return new Ramp(
        id,
        kind,
        trigger,
        shift,
        fromWeights,
        toWeights,
        startPercent,
        endPercent,
        steps,
        index,
        good,
        stepSinceMillis,
        windowMillis,
        state,
        confirmEachStep,
        record);
  }

  Ramp withState(State s) {
    return new Ramp(
        id,
        kind,
        trigger,
        shift,
        fromWeights,
        toWeights,
        startPercent,
        endPercent,
        steps,
        index,
        lastGood,
        stepSinceMillis,
        windowMillis,
        s,
        confirmEachStep,
        record);
  }

  Ramp withRecord(SwitchRecord r) {
    return new Ramp(
        id,
        kind,
        trigger,
        shift,
        fromWeights,
        toWeights,
        startPercent,
        endPercent,
        steps,
        index,
        lastGood,
        stepSinceMillis,
        windowMillis,
        state,
        confirmEachStep,
        r);
  }
}
