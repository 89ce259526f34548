package io.sluice.core.spi;

import java.io.IOException;

/**
 * Makes a backup of the running node's state directory, consistent with its changes (see {@link
 * io.sluice.core.store.StateArchive}); answered by {@code GET /api/v1/state/backup}.
 */
@FunctionalInterface
public interface StateBackups {
  /** The archive's bytes, with or without the node's secrets. */
  byte[] backup(boolean secrets) throws IOException;
}
