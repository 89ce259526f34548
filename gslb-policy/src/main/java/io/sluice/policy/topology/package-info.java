/**
 * Client to region: explicit network maps, then a MaxMind GeoIP database, then the default region,
 * compiled into allocation-free prefix tries once per configuration.
 */
package io.sluice.policy.topology;
