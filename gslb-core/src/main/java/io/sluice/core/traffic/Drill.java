package io.sluice.core.traffic;

import io.sluice.core.control.SwitchRecord;
import io.sluice.core.state.Shift;

/**
 * A time-boxed drill: {@code shift} sends a small cohort to standby pools until {@code endsMillis}.
 */
public record Drill(
    String id, Shift shift, long startedMillis, long endsMillis, SwitchRecord record) {

  Drill withRecord(SwitchRecord r) {
    return new Drill(id, shift, startedMillis, endsMillis, r);
  }
}
