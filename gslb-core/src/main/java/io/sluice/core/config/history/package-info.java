/**
 * The history of applied configurations: numbered versions with their YAML, the content hashes of
 * the files they reference, who applied them, when and why; the local content-addressed copies of
 * those files; and the store SPI that keeps them in the state directory or in a cluster's etcd.
 */
package io.sluice.core.config.history;
