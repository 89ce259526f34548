package io.sluice.core.control;

import java.util.Map;

/**
 * One append-only audit record: who or what changed what, when, why, and the snapshot versions
 * before and after.
 */
public record AuditEvent(
    long seq,
    long timeMillis,
    String actor,
    String role,
    String action,
    String service,
    String reason,
    long versionBefore,
    long versionAfter,
    Map<String, Object> details) {}
