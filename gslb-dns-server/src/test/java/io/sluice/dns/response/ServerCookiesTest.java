package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.Arrays;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Server cookies against the test vectors of RFC 9018 Appendix A, which other implementations
 * (BIND, Knot, Unbound, PowerDNS) pass too: a cookie made here is valid there and the reverse.
 */
class ServerCookiesTest {
  private static final HexFormat HEX = HexFormat.of();
  private static final String SECRET = "e5e973e5a6b2a43f48e7dc849e37bfcf";

  @Test
  void appendixA1LearningANewServerCookie() throws Exception {
    assertEquals(
        "2464c4abcf10c957010000005cf79f111f8130c3eee29480",
        fresh(SECRET, "2464c4abcf10c957", "198.51.100.100", 1559731985L));
  }

  @Test
  void appendixA2TheSameClientLearningARenewedCookie() throws Exception {
    ServerCookies c = cookies(SECRET, null);
    byte[] held = HEX.parseHex("2464c4abcf10c957010000005cf79f111f8130c3eee29480");
    byte[] ip = ip("198.51.100.100");
    // 40 minutes later: still valid, but older than half an hour, so it is renewed.
    long now = 1559734385L;
    assertEquals(ServerCookies.VALID, c.check(held, 0, held.length, ip, now));
    assertEquals(
        "2464c4abcf10c957010000005cf7a871d4a564a1442aca77",
        HEX.formatHex(body(c.option(held, 0, held.length, ip, now, false))));
  }

  @Test
  void appendixA3AnotherClientWithReservedBitsSet() throws Exception {
    ServerCookies c = cookies(SECRET, null);
    byte[] held = HEX.parseHex("fc93fc62807ddb8601abcdef5cf78f71a314227b6679ebf5");
    byte[] ip = ip("203.0.113.203");
    // Its reserved bytes (abcdef) are hashed as sent: valid when it was made...
    assertEquals(ServerCookies.REUSABLE, c.check(held, 0, held.length, ip, 1559727985L));
    // ... but an hour and 52 minutes later it has expired, and a fresh one is made.
    assertEquals(ServerCookies.INVALID, c.check(held, 0, held.length, ip, 1559734700L));
    assertEquals(
        "fc93fc62807ddb86010000005cf7a9acf73a7810aca2381e",
        HEX.formatHex(body(c.option(held, 0, held.length, ip, 1559734700L, false))));
    // The same cookie from another address is not valid.
    assertEquals(
        ServerCookies.INVALID, c.check(held, 0, held.length, ip("203.0.113.204"), 1559727985L));
  }

  @Test
  void appendixA4AnIpv6ClientAfterTheSecretRolledOver() throws Exception {
    String old = "dd3bdf9344b678b185a6f5cb60fca715";
    String current = "445536bcd2513298075a5d379663c962";
    byte[] held = HEX.parseHex("22681ab97d52c298010000005cf7c57926556bd0934c72f8");
    byte[] ip = ip("2001:db8:220:1:59de:d0f4:8769:82b8");
    long now = 1559741961L;
    assertEquals(ServerCookies.INVALID, cookies(current, null).check(held, 0, 24, ip, now));
    ServerCookies rotated = cookies(current, old);
    // Made with the previous secret: valid, never reused as is.
    assertEquals(ServerCookies.VALID, rotated.check(held, 0, 24, ip, now));
    assertEquals(
        "22681ab97d52c298010000005cf7c609a6bb79d16625507a",
        HEX.formatHex(body(rotated.option(held, 0, 24, ip, now, false))));
  }

  @Test
  void timestampWindowOfRfc9018Section43() throws Exception {
    ServerCookies c = cookies(SECRET, null);
    byte[] ip = ip("198.51.100.100");
    long made = 1559731985L;
    byte[] held = body(c.option(HEX.parseHex("2464c4abcf10c957"), 0, 8, ip, made, false));
    assertEquals(ServerCookies.REUSABLE, c.check(held, 0, 24, ip, made));
    assertEquals(ServerCookies.REUSABLE, c.check(held, 0, 24, ip, made + 1800));
    assertEquals(ServerCookies.VALID, c.check(held, 0, 24, ip, made + 1801));
    assertEquals(ServerCookies.VALID, c.check(held, 0, 24, ip, made + 3600));
    assertEquals(ServerCookies.INVALID, c.check(held, 0, 24, ip, made + 3601));
    assertEquals(ServerCookies.REUSABLE, c.check(held, 0, 24, ip, made - 300));
    assertEquals(ServerCookies.INVALID, c.check(held, 0, 24, ip, made - 301));
    // A client cookie alone, another version, another length: not a valid server cookie.
    assertEquals(ServerCookies.INVALID, c.check(held, 0, 8, ip, made));
    byte[] v2 = held.clone();
    v2[8] = 2;
    assertEquals(ServerCookies.INVALID, c.check(v2, 0, 24, ip, made));
    assertArrayEquals(held, body(c.option(held, 0, 24, ip, made + 5, true)));
  }

  private static String fresh(String secret, String client, String ip, long now) throws Exception {
    byte[] cc = HEX.parseHex(client);
    return HEX.formatHex(body(cookies(secret, null).option(cc, 0, 8, ip(ip), now, false)));
  }

  private static ServerCookies cookies(String secret, String previous) {
    return new ServerCookies(
        HEX.parseHex(secret), previous == null ? null : HEX.parseHex(previous));
  }

  /** The option's data, without its code and length. */
  private static byte[] body(byte[] option) {
    assertEquals(ServerCookies.OPTION, option[1]);
    assertEquals(option.length - 4, option[3]);
    return Arrays.copyOfRange(option, 4, option.length);
  }

  private static byte[] ip(String literal) throws Exception {
    return InetAddress.getByName(literal).getAddress();
  }
}
