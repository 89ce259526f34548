package io.sluice.core.state;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Everything built from one configuration before it is served (compiled zone data with its encoded
 * answers, the compiled policy chain), keyed by type. It travels inside the {@link Snapshot} so
 * that the configuration and what was built from it are published by the same reference swap: a
 * query that reads one snapshot can never see new zone data with an old policy chain or the
 * reverse. Core does not know the types; the modules that build them read them back by class.
 */
public final class ConfigArtifacts {
  /** No artifacts: a snapshot built by hand (tests, tools) whose readers compile on their own. */
  public static final ConfigArtifacts EMPTY = new ConfigArtifacts(Map.of());

  // A handful of types, read on every query: a scan of two short arrays by identity costs less
  // than a hash map's probe (the class's identity hash and a modulo).
  private final Class<?>[] types;
  private final Object[] parts;

  private ConfigArtifacts(Map<Class<?>, Object> parts) {
    this.types = new Class<?>[parts.size()];
    this.parts = new Object[parts.size()];
    int i = 0;
    for (Map.Entry<Class<?>, Object> e : parts.entrySet()) {
      types[i] = e.getKey();
      this.parts[i++] = e.getValue();
    }
  }

  /** The artifact of {@code type}, or null when none was built. */
  public <T> T get(Class<T> type) {
    for (int i = 0; i < types.length; i++) {
      if (types[i] == type) {
        return type.cast(parts[i]);
      }
    }
    return null;
  }

  /** A builder, filled by the {@link ConfigCompiler}s of one reload. */
  public static Builder builder() {
    return new Builder();
  }

  /** Collects the artifacts of one build; not thread-safe, used by one reload at a time. */
  public static final class Builder {
    private final Map<Class<?>, Object> parts = new LinkedHashMap<>();

    private Builder() {}

    /** Adds {@code artifact} under {@code type}; each type is built once per configuration. */
    public <T> Builder put(Class<T> type, T artifact) {
      Objects.requireNonNull(artifact, "artifact");
      if (parts.putIfAbsent(type, artifact) != null) {
        throw new IllegalStateException(type.getSimpleName() + " was built twice");
      }
      return this;
    }

    /** The artifacts added so far, as an immutable set. */
    public ConfigArtifacts build() {
      return new ConfigArtifacts(parts);
    }
  }
}
