package io.sluice.core.traffic;

/**
 * A safety action (a rollback or a freeze) a node applied on its own while it could not reach the
 * cluster's shared store. It is kept in the node's local journal until it has been applied again on
 * top of the newest shared state, which it then wins over: whatever happened meanwhile, a rollback
 * or freeze made during the cut is in effect once the node is back.
 */
public record LocalAction(
    Kind kind,
    String service,
    String actor,
    String role,
    String reason,
    String requestId,
    long atMillis) {

  /** The commands a cut-off node still applies. */
  public enum Kind {
    ROLLBACK,
    FREEZE
  }
}
