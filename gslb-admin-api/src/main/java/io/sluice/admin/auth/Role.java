package io.sluice.admin.auth;

import java.util.Locale;

/** What a bearer token may do. */
public enum Role {
  /** Reads everything, changes nothing. */
  VIEWER,
  /** Reads, and changes traffic: weights, moves, rollback, freeze, drills, drains. */
  OPERATOR,
  /** Everything, including configuration reload. */
  ADMIN,
  /** A remote probe agent: may only post probe reports. */
  PROBE;

  /** True when a token with this role may call a route that requires {@code required}. */
  public boolean permits(Role required) {
    return switch (this) {
      case ADMIN -> true;
      case OPERATOR -> required == OPERATOR || required == VIEWER;
      case VIEWER -> required == VIEWER;
      case PROBE -> required == PROBE;
    };
  }

  /** The lower-case name used in config, audit and docs. */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }

  /** Parses a configured role name. */
  public static Role of(String label) {
    return valueOf(label.toUpperCase(Locale.ROOT));
  }
}
