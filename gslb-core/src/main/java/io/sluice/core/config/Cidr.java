package io.sluice.core.config;

/** A parsed network prefix, IPv4 or IPv6. */
public record Cidr(byte[] address, int prefix) {

  /** Parses {@code 10.0.0.0/8} or {@code 2001:db8::/32}; host bits must be zero. */
  public static Cidr parse(String s) {
    String why = problem(s);
    if (why != null) {
      throw new IllegalArgumentException(why);
    }
    int slash = s.indexOf('/');
    return new Cidr(
        Addresses.parse(s.substring(0, slash)), Integer.parseInt(s.substring(slash + 1)));
  }

  /** Why {@code s} is not a valid CIDR, or null. */
  public static String problem(String s) {
    int slash = s.indexOf('/');
    if (slash < 0) {
      return "must be a network in CIDR form such as 10.0.0.0/8, was '" + s + "'";
    }
    byte[] addr = Addresses.parse(s.substring(0, slash));
    if (addr == null) {
      return "has an invalid address: '" + s + "'";
    }
    int prefix;
    try {
      prefix = Integer.parseInt(s.substring(slash + 1));
    } catch (NumberFormatException e) {
      return "has an invalid prefix length: '" + s + "'";
    }
    if (prefix < 0 || prefix > addr.length * 8) {
      return "prefix length must be 0.." + addr.length * 8 + ", was " + prefix;
    }
    for (int bit = prefix; bit < addr.length * 8; bit++) {
      if ((addr[bit / 8] & (0x80 >>> (bit % 8))) != 0) {
        return "has host bits set beyond /" + prefix + ": '" + s + "'";
      }
    }
    return null;
  }
}
