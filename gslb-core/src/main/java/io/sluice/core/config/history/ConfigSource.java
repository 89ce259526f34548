package io.sluice.core.config.history;

import com.fasterxml.jackson.annotation.JsonProperty;

/** How a configuration version came to be applied. */
public enum ConfigSource {
  /** Read from the node's configuration file when the process started. */
  @JsonProperty("start")
  START,
  /** Read from the node's configuration file again (SIGHUP or {@code sluice ctl reload}). */
  @JsonProperty("reload")
  RELOAD,
  /** Uploaded with {@code sluice ctl config push}. */
  @JsonProperty("push")
  PUSH,
  /** An earlier version applied again by {@code sluice ctl config rollback}. */
  @JsonProperty("rollback")
  ROLLBACK;

  /** Whether the version was read from the node's own configuration file. */
  public boolean fromFile() {
    return this == START || this == RELOAD;
  }

  /** The name used in JSON and the audit log. */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }
}
