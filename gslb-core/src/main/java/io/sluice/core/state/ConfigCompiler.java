package io.sluice.core.state;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.SluiceConfig;

/**
 * One module's share of building a configuration before it is served (the DNS module compiles and
 * encodes zones, the policy module compiles the chain). Runs off the query path, once per start or
 * reload, before anything is published; throwing rejects the configuration and changes nothing.
 */
@FunctionalInterface
public interface ConfigCompiler {

  /**
   * Builds this module's artifacts for {@code config} (named {@code source} in errors) into {@code
   * out}; {@code running} is the snapshot being served now, for state worth carrying over.
   *
   * @throws ConfigException when the configuration cannot be served
   */
  void compile(SluiceConfig config, String source, Snapshot running, ConfigArtifacts.Builder out)
      throws ConfigException;
}
