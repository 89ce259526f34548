package io.sluice.core.traffic;

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
 * lastGood} the last step whose window passed with its gates holding. {@code state} is {@code
 * running}, {@code awaiting-confirm} or {@code paused} (after a gate failure).
 */
public record Ramp(
    String id,
    String kind,
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
    String state,
    boolean confirmEachStep,
    SwitchRecord record) {

  public static final String RUNNING = "running";
  public static final String AWAITING_CONFIRM = "awaiting-confirm";
  public static final String PAUSED = "paused";

  public Ramp {
    fromWeights = fromWeights == null ? null : Map.copyOf(fromWeights);
    toWeights = toWeights == null ? null : Map.copyOf(toWeights);
    steps = List.copyOf(steps);
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

  Ramp withState(String s) {
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
