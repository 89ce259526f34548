package io.sluice.core.store;

import java.io.IOException;
import java.util.Locale;

/**
 * A change could not be made durable (the state directory is full or cannot be written); nothing of
 * it was published or acknowledged.
 */
public final class StoreUnavailableException extends RuntimeException {
  private static final long serialVersionUID = 1L;
  private final boolean full;

  private StoreUnavailableException(String message, boolean full, Throwable cause) {
    super(message, cause);
    this.full = full;
  }

  /**
   * Describes {@code cause}, met while writing {@code where}, in the words an operator needs:
   * "state directory full: …" or "state directory cannot be written: …", then {@code consequence}.
   */
  public static StoreUnavailableException of(String where, IOException cause, String consequence) {
    String detail = String.valueOf(cause.getMessage());
    boolean full = isFull(cause);
    String head = full ? "state directory full: " : "state directory cannot be written: ";
    return new StoreUnavailableException(
        head + where + ": " + detail + "; " + consequence, full, cause);
  }

  /** The store stays unavailable for {@code reason} (a message built by {@link #of}). */
  public static StoreUnavailableException still(String reason) {
    return new StoreUnavailableException(reason, isFull(new IOException(reason)), null);
  }

  /** True when the cause was a full file system (ENOSPC or a quota). */
  public boolean full() {
    return full;
  }

  static boolean isFull(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT);
      if (m.contains("no space left")
          || m.contains("disk quota")
          || m.contains("not enough space")) {
        return true;
      }
    }
    return false;
  }
}
