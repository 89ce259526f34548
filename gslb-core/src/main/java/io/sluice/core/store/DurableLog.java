package io.sluice.core.store;

import java.io.Closeable;
import java.io.IOException;
import java.util.Optional;

/**
 * A durable register of whole-state records: {@link #commit} returns only once the record would
 * survive a crash, and {@link #recover} returns the last committed record. Kept this narrow so a
 * replicated store can stand in for the embedded file-based one.
 */
public interface DurableLog extends Closeable {

  /** The last committed record, or empty when nothing was ever committed. */
  Optional<byte[]> recover() throws IOException;

  /** Where the log is kept, for messages to operators. */
  default String location() {
    return getClass().getSimpleName();
  }

  /** Writes and forces something small (not a record) to check that the log can take writes. */
  default void checkWritable() throws IOException {}

  /** Durably records {@code state} as the newest record before returning. */
  void commit(byte[] state) throws IOException;
}
