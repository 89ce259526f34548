package io.sluice.core.config;

/**
 * An IP address with an optional port, as {@code 192.0.2.1}, {@code 192.0.2.1:5300}, {@code
 * 2001:db8::1} or {@code [2001:db8::1]:5300}.
 */
public record HostPort(byte[] address, int port) {

  /** Parses {@code s}, {@code defaultPort} when it names none; throws when it is not valid. */
  public static HostPort parse(String s, int defaultPort) {
    String why = problem(s);
    if (why != null) {
      throw new IllegalArgumentException(why);
    }
    String host = s;
    int port = defaultPort;
    if (s.startsWith("[")) {
      int close = s.indexOf(']');
      host = s.substring(1, close);
      if (close + 1 < s.length()) {
        port = Integer.parseInt(s.substring(close + 2));
      }
    } else if (s.indexOf(':') == s.lastIndexOf(':') && s.indexOf(':') > 0) {
      host = s.substring(0, s.indexOf(':'));
      port = Integer.parseInt(s.substring(s.indexOf(':') + 1));
    }
    return new HostPort(Addresses.parse(host), port);
  }

  /** Why {@code s} is not an address with an optional port, or null. */
  public static String problem(String s) {
    if (s == null || s.isBlank()) {
      return "must be an address with an optional port, such as 192.0.2.1:53";
    }
    String host = s;
    String port = null;
    if (s.startsWith("[")) {
      int close = s.indexOf(']');
      if (close < 0 || (close + 1 < s.length() && s.charAt(close + 1) != ':')) {
        return "must be [IPv6]:port, was '" + s + "'";
      }
      host = s.substring(1, close);
      port = close + 1 < s.length() ? s.substring(close + 2) : null;
    } else if (s.indexOf(':') > 0 && s.indexOf(':') == s.lastIndexOf(':')) {
      host = s.substring(0, s.indexOf(':'));
      port = s.substring(s.indexOf(':') + 1);
    }
    if (!Addresses.isLiteral(host)) {
      return "must be an IP address with an optional port, was '" + s + "'";
    }
    if (port != null) {
      int n;
      try {
        n = Integer.parseInt(port);
      } catch (NumberFormatException e) {
        return "has an invalid port: '" + s + "'";
      }
      if (n < 1 || n > 65535) {
        return "port must be 1..65535, was " + n;
      }
    }
    return null;
  }
}
