package io.sluice.policy;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.ServiceConfig;
import java.util.List;

/**
 * One service compiled against a configuration: pools by index, the chain's steps, the endpoints
 * with their health keys and address bytes, and the last-resort addresses per family; {@code
 * sampleThreshold} is the share of its answers handed to the decision sampler (shadow chain and
 * decision log, {@code SampleRing.threshold}), 0: none.
 */
record CompiledService(
    String fqdn,
    ServiceConfig config,
    PoolTable pools,
    List<CompiledStep> steps,
    Balancer balancer,
    int limit,
    List<List<EndpointConfig>> endpoints,
    String[][] endpointKeys,
    byte[][][] endpointAddresses,
    List<List<byte[]>> lastResortByFamily,
    int sampleThreshold) {}
