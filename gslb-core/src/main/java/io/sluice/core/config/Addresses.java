package io.sluice.core.config;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** Parses IP address literals without ever asking a resolver. */
public final class Addresses {
  private Addresses() {}

  /** True when {@code s} is an IPv4 dotted quad or an IPv6 literal. */
  public static boolean isLiteral(String s) {
    return parse(s) != null;
  }

  /** The address bytes of a literal (4 or 16), or null when {@code s} is not a literal. */
  public static byte[] parse(String s) {
    if (s == null || s.isEmpty()) {
      return null;
    }
    if (s.indexOf(':') >= 0) {
      // InetAddress.getByName does not resolve names that contain a colon.
      try {
        String literal = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
        if (!literal.matches("[0-9a-fA-F:.]+")) {
          return null;
        }
        return InetAddress.getByName(literal).getAddress();
      } catch (UnknownHostException e) {
        return null;
      }
    }
    String[] parts = s.split("\\.", -1);
    if (parts.length != 4) {
      return null;
    }
    byte[] out = new byte[4];
    for (int i = 0; i < 4; i++) {
      String part = parts[i];
      if (part.isEmpty() || part.length() > 3 || !part.chars().allMatch(Character::isDigit)) {
        return null;
      }
      int v = Integer.parseInt(part);
      if (v > 255) {
        return null;
      }
      out[i] = (byte) v;
    }
    return out;
  }

  /** The address of a literal, or {@link IllegalArgumentException} when {@code s} is none. */
  public static InetAddress of(String s) {
    byte[] a = parse(s);
    if (a == null) {
      throw new IllegalArgumentException("not an IP address: " + s);
    }
    try {
      return InetAddress.getByAddress(a);
    } catch (UnknownHostException e) {
      throw new IllegalArgumentException("not an IP address: " + s, e);
    }
  }

  /** Adds a problem for an empty {@code listen} list and for each entry that is not a literal. */
  static void validateListen(String path, java.util.List<String> listen, Problems p) {
    if (listen.isEmpty()) {
      p.add(Problems.child(path, "listen"), "at least one address is required");
    }
    for (int i = 0; i < listen.size(); i++) {
      if (!isLiteral(listen.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "listen"), i),
            "must be an IPv4 or IPv6 address, was '" + listen.get(i) + "'");
      }
    }
  }
}
