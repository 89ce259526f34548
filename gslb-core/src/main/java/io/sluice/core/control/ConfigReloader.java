package io.sluice.core.control;

import io.sluice.core.config.ConfigException;

/** Reloads the configuration from its file; an invalid one is rejected and the running one kept. */
public interface ConfigReloader {

  /** Reloads and swaps atomically, or throws with every problem and changes nothing. */
  CommandResult reload(Actor actor) throws ConfigException;
}
