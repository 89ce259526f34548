package io.sluice.core.control;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.history.BlobCache;
import io.sluice.core.config.history.ConfigVersion;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The configuration history commands the admin API and {@code sluice ctl config} share: push a new
 * configuration, roll back to an earlier version, and read the history. Push and rollback validate
 * with the same check as the start and {@code sluice check}, apply in one swap and record the
 * version, or change nothing and throw every problem.
 */
public interface ConfigCommands {

  /**
   * Validates {@code yaml} with the files it references ({@code files}: path as written to the
   * SHA-256 of content already received) and applies it as a new version.
   */
  CommandResult push(Actor actor, String yaml, Map<String, String> files, String reason)
      throws ConfigException, IOException;

  /** Applies kept version {@code version} again, as a new version that restores it. */
  CommandResult rollback(Actor actor, long version, String reason)
      throws ConfigException, IOException;

  /** The kept versions, newest first, and which one is current. */
  History history() throws IOException;

  /** Kept version {@code n}. */
  Optional<ConfigVersion> version(long n) throws IOException;

  /** Where uploads of referenced files land before a push names them. */
  BlobCache blobs();

  /**
   * The actor's role may not make this change: a version that adds, removes or changes admin tokens
   * or other admin settings needs the admin role, as a reload of the file does, so that an operator
   * cannot grant itself more.
   */
  final class RoleRequired extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Refused for the reason {@code message} gives. */
    public RoleRequired(String message) {
      super(message);
    }
  }

  /**
   * The versions kept, the current one's number and the one this node runs (0: none); they differ
   * on a cluster node that has not applied the current version yet (or cannot).
   */
  record History(long current, long applied, List<ConfigVersion> versions) {
    public History {
      versions = List.copyOf(versions);
    }
  }
}
