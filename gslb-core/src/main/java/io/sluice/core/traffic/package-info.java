/**
 * The traffic controller: gated ramps with stable client cohorts, failover and failback, modes,
 * cooldown, freeze, rollback, drills, TTL compression and switch records, implementing {@link
 * io.sluice.core.control.ControlPlane}. {@link io.sluice.core.traffic.TrafficSystem} opens and
 * wires it. See {@code docs/traffic.md}.
 */
package io.sluice.core.traffic;
