package io.sluice.core.store;

/**
 * The cluster's shared store cannot be reached, so a change that must reach every node was not made
 * on this one either; the message names the store's endpoints and the reason.
 */
public final class ClusterUnreachableException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  private ClusterUnreachableException(String message, Throwable cause) {
    super(message, cause);
  }

  /** "cluster store unreachable (etcd at …): reason; consequence". */
  public static ClusterUnreachableException of(
      String where, String reason, String consequence, Throwable cause) {
    return new ClusterUnreachableException(
        "cluster store unreachable (" + where + "): " + reason + "; " + consequence, cause);
  }
}
