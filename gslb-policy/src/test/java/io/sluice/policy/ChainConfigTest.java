package io.sluice.policy;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Chain and service errors, each with the config path and a clear message. */
class ChainConfigTest {

  static String svc(String body) {
    return "      - name: s\n" + body.indent(8);
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, nearest]"),
            "zones[0].services[0].chain[1]: unknown step 'nearest'"),
        Arguments.of(svc("pools: [eu9]"), "zones[0].services[0].pools[0].pool: unknown pool 'eu9'"),
        Arguments.of(
            svc("pools: [{ pool: eu1, weight: 0 }, { pool: eu2, weight: 0 }]"),
            "zones[0].services[0].pools: weights are all zero"),
        Arguments.of(
            svc("pools: [us1, us2]\nchain: [healthy, residency(eu-only), geo]"),
            "zones[0].services[0].chain[1]: residency rule 'eu-only' can never be satisfied"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, residency(mars)]"),
            "zones[0].services[0].chain[1]: unknown residency rule 'mars'"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [geo, healthy]"),
            "zones[0].services[0].chain[0]: the first step must be 'healthy'"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, geo, residency(eu-only)]"),
            "zones[0].services[0].chain[2]: red-line step 'residency' must come before"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, weighted, geo]"),
            "zones[0].services[0].chain[2]: only 'limit' may follow the balancing step"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, weighted(most)]"),
            "zones[0].services[0].chain[1]: weighted answer style must be 'one' or 'mix'"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, capacity(120)]"),
            "zones[0].services[0].chain[1]: step 'capacity' watermark percent must be 1..100"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, limit(x)]"),
            "zones[0].services[0].chain[1]: step 'limit' takes a whole number"),
        Arguments.of(
            svc("pools: [eu1]\nchain: [healthy, geo, geo]"),
            "zones[0].services[0].chain[2]: step 'geo' appears twice"),
        Arguments.of(
            svc("pools: [eu1]\ncrossRegionLimit: 101"),
            "zones[0].services[0].crossRegionLimit: must be 0..100, was 101"),
        Arguments.of(
            svc("pools: [mx1]\nchain: [healthy, capacity]"),
            "zones[0].services[0].chain[1]: step 'capacity' needs a capacity"));
  }

  @org.junit.jupiter.api.Test
  void duplicateNetworkMapsAreErrorsButOverlapsAreFine() throws Exception {
    String dup =
        Fixtures.BASE.replace(
            "    - { cidr: 10.3.0.0/16, region: ap }\n",
            "    - { cidr: 10.3.0.0/16, region: ap }\n    - { cidr: 10.3.0.0/16, region: eu }\n");
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                io.sluice.core.config.ConfigLoader.parse(
                    dup + svc("pools: [eu1]"), "test.yaml", java.nio.file.Path.of(".")));
    assertTrue(
        e.getMessage().contains("topology.networks[3].cidr: duplicate network '10.3.0.0/16'"),
        e.getMessage());
    String overlap =
        Fixtures.BASE.replace(
            "    - { cidr: 10.3.0.0/16, region: ap }\n",
            "    - { cidr: 10.3.0.0/16, region: ap }\n    - { cidr: 10.3.1.0/24, region: eu }\n");
    PolicyPlanner.check(
        io.sluice.core.config.ConfigLoader.parse(
            overlap + svc("pools: [eu1]"), "test.yaml", java.nio.file.Path.of(".")),
        "test.yaml");
  }

  @ParameterizedTest
  @MethodSource("invalid")
  void rejected(String services, String expected) {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> PolicyPlanner.check(Fixtures.config(services), "test.yaml"));
    assertTrue(e.getMessage().contains(expected), e.getMessage());
  }
}
