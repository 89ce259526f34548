package io.sluice.core.config;

import java.net.IDN;
import java.util.Locale;

/** Textual domain-name checks for config validation; the wire form lives in the DNS module. */
public final class DomainNames {
  private DomainNames() {}

  /**
   * Lower-cased absolute form (trailing dot) of {@code name}, relative names under {@code origin}.
   */
  public static String absolute(String name, String origin) {
    String n = name.trim();
    if (n.equals("@")) {
      return canonical(origin);
    }
    if (n.endsWith(".")) {
      return canonical(n);
    }
    String o = canonical(origin);
    return (n + "." + (o.equals(".") ? "" : o)).toLowerCase(Locale.ROOT);
  }

  /** Lower-cased with a trailing dot. */
  public static String canonical(String name) {
    String n = name.trim().toLowerCase(Locale.ROOT);
    return n.endsWith(".") ? n : n + ".";
  }

  /** Why {@code name} is not a valid domain name, or null when it is. */
  public static String problem(String name) {
    if (name == null || name.isBlank()) {
      return "must be a domain name, was empty";
    }
    String n = canonical(name);
    if (n.equals(".")) {
      return null;
    }
    if (n.length() > 254) {
      return "must be at most 253 characters, was " + (n.length() - 1);
    }
    for (int i = 0; i < n.length(); i++) {
      char c = n.charAt(i);
      if (c <= ' ' || c >= 0x7f) {
        // A query carries the name's bytes as sent: a name with other characters never matches.
        return "must be printable ASCII without spaces (write an internationalized name in its"
            + " xn-- form"
            + aLabel(name)
            + "), was '"
            + name
            + "'";
      }
    }
    String[] labels = n.substring(0, n.length() - 1).split("\\.", -1);
    for (String label : labels) {
      if (label.isEmpty()) {
        return "has an empty label: '" + name + "'";
      }
      if (label.length() > 63) {
        return "has a label longer than 63 characters: '" + label + "'";
      }
    }
    return null;
  }

  private static String aLabel(String name) {
    try {
      return ", here '" + IDN.toASCII(name, IDN.ALLOW_UNASSIGNED) + "'";
    } catch (IllegalArgumentException e) {
      return "";
    }
  }

  /** True when {@code name} equals {@code zone} or lies below it (both canonical). */
  public static boolean isAtOrBelow(String name, String zone) {
    return zone.equals(".") || name.equals(zone) || name.endsWith("." + zone);
  }
}
