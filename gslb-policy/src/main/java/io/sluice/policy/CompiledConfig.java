package io.sluice.policy;

import io.sluice.core.config.SluiceConfig;
import io.sluice.policy.topology.ClientTopology;
import java.util.List;
import java.util.Map;

/**
 * A configuration compiled for the policy chain: immutable and built once per config version.
 *
 * @param shadows the candidate chain of each service that has one, compiled as the same service
 * @param logThreshold the decision log's sampling threshold ({@code SampleRing.threshold}), 0: off
 * @param warnings problems worth an operator's attention that do not stop the configuration, each
 *     prefixed with its path
 */
record CompiledConfig(
    SluiceConfig config,
    RegionGraph regions,
    ClientTopology topology,
    Map<String, CompiledService> services,
    Map<String, CompiledService> shadows,
    int logThreshold,
    List<String> warnings) {}
