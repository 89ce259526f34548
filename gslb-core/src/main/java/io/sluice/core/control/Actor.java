package io.sluice.core.control;

/**
 * Who made a change: an authenticated operator (name, role, and the {@link TokenScope} of a token
 * limited to some services or pools, else null) or an internal component.
 */
public record Actor(String name, String role, TokenScope scope) {

  /** The traffic controller acting on its own. */
  public static final Actor CONTROLLER = new Actor("controller", "system");

  /** The health checker. */
  public static final Actor PROBE = new Actor("probe", "system");

  /** An actor without a scope. */
  public Actor(String name, String role) {
    this(name, role, null);
  }
}
