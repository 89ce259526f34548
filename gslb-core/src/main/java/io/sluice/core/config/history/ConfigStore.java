package io.sluice.core.config.history;

import java.io.IOException;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where the configuration versions live: the state directory of a single node ({@link
 * FileConfigStore}) or the cluster's etcd, shared by every node. The node applies versions the same
 * way over either; only a shared store ever reports versions other nodes appended.
 */
public interface ConfigStore extends AutoCloseable {

  /** The version the store says is current, if any version was ever appended. */
  Optional<ConfigVersion> current() throws IOException;

  /** The versions kept, newest first. */
  List<ConfigVersion> versions() throws IOException;

  /** Version {@code n}, when it is still kept. */
  Optional<ConfigVersion> version(long n) throws IOException;

  /**
   * Appends {@code draft} as the next version and makes it current, provided the current version is
   * still {@code expectedCurrent} (0: none yet); every content it references must be in {@link
   * #blobs()}, from where a shared store uploads what it lacks before the version is written.
   *
   * @throws Conflict when another version became current meanwhile; nothing was written
   */
  ConfigVersion append(ConfigVersion draft, long expectedCurrent) throws IOException;

  /** The node's local copies of referenced files. */
  BlobCache blobs();

  /**
   * Makes sure {@link #blobs()} holds every file {@code v} references, fetching from the shared
   * store what is missing.
   *
   * @throws IOException naming a file that cannot be had; the version must not be applied then
   */
  void fetch(ConfigVersion v) throws IOException;

  /** Records that this node now runs {@code v} (a shared store keeps a local copy for starts). */
  default void applied(ConfigVersion v) throws IOException {}

  /**
   * Calls {@code listener} with each version another writer makes current from now on; a local
   * store has no other writers.
   */
  default void watch(Consumer<ConfigVersion> listener) {}

  @Override
  default void close() {}

  /** Another version became current first; the caller may re-read and retry. */
  final class Conflict extends IOException {
    private static final long serialVersionUID = 1L;

    /** A conflict described by {@code message}. */
    public Conflict(String message) {
      super(message);
    }
  }
}
