package io.sluice.core.config;

/**
 * Answers to CHAOS-class {@code version.bind} and {@code id.server} queries; a null value means the
 * query is refused, which is the default so a server does not advertise its version.
 */
public record ChaosConfig(String version, String id) {}
