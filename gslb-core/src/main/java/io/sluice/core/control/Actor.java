package io.sluice.core.control;

/** Who made a change: an authenticated operator (name, role) or an internal component. */
public record Actor(String name, String role) {

  /** The traffic controller acting on its own. */
  public static final Actor CONTROLLER = new Actor("controller", "system");

  /** The health checker. */
  public static final Actor PROBE = new Actor("probe", "system");
}
