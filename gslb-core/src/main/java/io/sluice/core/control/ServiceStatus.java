package io.sluice.core.control;

import io.sluice.core.config.ShiftMode;
import java.util.Map;

/**
 * Operator-visible traffic state of one service: current share per pool (overall and per client
 * region; the latter null when the planner cannot tell), the ramp or drill in progress, a pending
 * confirmation, freeze flags and the TTL being served.
 */
public record ServiceStatus(
    String service,
    ShiftMode mode,
    boolean frozen,
    boolean globallyFrozen,
    Map<String, Double> shares,
    Map<String, Object> ramp,
    Map<String, Object> drill,
    Map<String, Object> pending,
    long ttlServed,
    long lastStableVersion,
    Map<String, Map<String, Double>> sharesByRegion) {}
