/**
 * The nodes of one NS set acting as one Sluice, on etcd: shared state, opinions, leader, config.
 */
package io.sluice.cluster;
