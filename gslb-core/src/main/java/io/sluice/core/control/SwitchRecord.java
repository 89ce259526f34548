package io.sluice.core.control;

import java.util.List;
import java.util.Map;

/**
 * The post-mortem summary of one traffic shift: trigger, from and to, the step curve with times,
 * gates and what they measured, and whether and how fast it was rolled back.
 */
public record SwitchRecord(
    String id,
    String service,
    String trigger,
    List<String> from,
    List<String> to,
    long startedMillis,
    Long endedMillis,
    String outcome,
    List<Map<String, Object>> steps,
    Map<String, Object> details) {}
