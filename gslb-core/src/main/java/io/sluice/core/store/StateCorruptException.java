package io.sluice.core.store;

import java.io.IOException;
import java.nio.file.Path;

/**
 * The state directory holds damage that is not the torn tail of an interrupted write: starting
 * would silently drop acknowledged changes, so the store refuses to open and names the recovery
 * command.
 */
public final class StateCorruptException extends IOException {
  private static final long serialVersionUID = 1L;

  StateCorruptException(Path stateDir, String problem) {
    super(
        problem
            + "; refusing to start so that no acknowledged change is dropped silently. To recover,"
            + " stop the node and run 'sluice state repair --state-dir "
            + stateDir
            + "': it keeps a copy of the damaged files and prints what it drops (see"
            + " docs/state.md)");
  }
}
