package io.sluice.core.spi;

import java.io.IOException;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiConsumer;

/**
 * Where the nodes of a cluster share each signed zone's DNSSEC key files, so that every node signs
 * with the same keys: per zone, the files' names and texts ({@code K<zone>.+<alg>+<tag>.key} and
 * {@code .private}). The cluster module implements it on etcd; a single node has none.
 */
public interface KeyFileExchange extends AutoCloseable {

  /** The cluster's files of {@code zone}, or empty when no node shared any yet. */
  Optional<Map<String, String>> read(String zone) throws IOException;

  /**
   * Shares {@code files} as the zone's unless another node did first (one transaction); returns the
   * cluster's files either way.
   */
  Map<String, String> publishIfAbsent(String zone, Map<String, String> files) throws IOException;

  /** Adds or replaces {@code files} among the zone's, all at once (a rollover step). */
  void update(String zone, Map<String, String> files) throws IOException;

  /** Tells {@code listener} of every later change: the zone and its files as now shared. */
  void watch(BiConsumer<String, Map<String, String>> listener);

  @Override
  void close();
}
