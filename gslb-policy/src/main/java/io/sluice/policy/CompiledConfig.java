package io.sluice.policy;

import io.sluice.core.config.SluiceConfig;
import io.sluice.policy.topology.ClientTopology;
import java.util.List;
import java.util.Map;

/**
 * A configuration compiled for the policy chain: immutable and built once per config version.
 *
 * @param warnings problems worth an operator's attention that do not stop the configuration, each
 *     prefixed with its path
 */
record CompiledConfig(
    SluiceConfig config,
    RegionGraph regions,
    ClientTopology topology,
    Map<String, CompiledService> services,
    List<String> warnings) {}
