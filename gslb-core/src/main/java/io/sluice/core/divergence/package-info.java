/**
 * The answer-divergence check: asks every node of a cluster over DNS, as a deterministic spread of
 * client subnets, and reports where their answers differ ({@code sluice ctl verify --all-nodes} and
 * the periodic in-node check). The DNS wire itself is behind {@link
 * io.sluice.core.divergence.DnsAsker}, implemented by the DNS server module. See {@code
 * docs/cluster.md}.
 */
package io.sluice.core.divergence;
