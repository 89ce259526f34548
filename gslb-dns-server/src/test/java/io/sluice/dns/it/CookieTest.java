package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.ConfigException;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.testing.ManualTicker;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Arrays;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.EDNSOption;
import org.xbill.DNS.GenericEDNSOption;
import org.xbill.DNS.Message;
import org.xbill.DNS.Rcode;
import org.xbill.DNS.Section;
import org.xbill.DNS.SimpleResolver;

/**
 * DNS Cookies (RFC 7873, server cookies of RFC 9018) over real UDP and TCP sockets: a client cookie
 * gets a server cookie that is valid on the next query, the previous secret is accepted after a
 * rotation, unknown or expired cookies get a fresh one (or BADCOOKIE when required), and a
 * malformed option is FORMERR. The clock is a manual ticker.
 */
class CookieTest {
  private static final byte[] CLIENT = {(byte) 0x24, 0x64, (byte) 0xc4, (byte) 0xab, 1, 2, 3, 4};

  @TempDir Path dir;
  private final ManualTicker ticker = new ManualTicker();

  private static String config(String cookies) {
    return """
        dns:
          listen: [127.0.0.1]
          port: 0
          threads: 1
          cookies: { %s }
        stateDir: state
        """
            .formatted(cookies)
        + TestZones.SMALL_ZONE;
  }

  private TestServer server;

  @BeforeEach
  void start() throws Exception {
    server = TestServer.start(config("enabled: true"), dir, GslbMetrics.NOOP, ticker);
  }

  @org.junit.jupiter.api.AfterEach
  void stop() {
    server.close();
  }

  @Test
  void secretIsCreatedOnFirstStartReadableByItsOwnerOnly() throws Exception {
    Path secret = dir.resolve("state/cookie.secret");
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(secret)));
    assertTrue(Files.readString(secret).strip().matches("[0-9a-f]{32}"));
  }

  @Test
  void clientCookieGetsAServerCookieValidOnTheNextQuery() throws Exception {
    Message first = ask(false, new CookieOption(CLIENT));
    assertEquals(Rcode.NOERROR, first.getRcode());
    assertEquals(1, first.getSection(Section.ANSWER).size());
    CookieOption cookie = RateLimitTest.cookieOf(first);
    assertArrayEquals(CLIENT, cookie.getClientCookie());
    byte[] server = cookie.getServerCookie().orElseThrow();
    assertEquals(16, server.length);
    assertEquals(1, server[0], "version 1 (RFC 9018)");
    assertEquals(ticker.currentTimeMillis() / 1000, ByteBuffer.wrap(server, 4, 4).getInt());

    // Presented again, it is valid and young: it comes back as it is.
    ticker.advance(Duration.ofSeconds(10));
    Message second = ask(false, cookie);
    assertEquals(1, second.getSection(Section.ANSWER).size());
    assertArrayEquals(server, RateLimitTest.cookieOf(second).getServerCookie().orElseThrow());

    // Older than half an hour it is still valid, but renewed.
    ticker.advance(Duration.ofMinutes(31));
    requireCookies("");
    Message renewed = ask(false, cookie);
    assertEquals(Rcode.NOERROR, renewed.getRcode());
    byte[] fresh = RateLimitTest.cookieOf(renewed).getServerCookie().orElseThrow();
    assertFalse(Arrays.equals(server, fresh));

    // Older than an hour it is no longer valid: BADCOOKIE, with a fresh cookie that works.
    ticker.advance(Duration.ofMinutes(30));
    Message expired = ask(false, cookie);
    assertEquals(Rcode.BADCOOKIE, expired.getRcode());
    CookieOption again = RateLimitTest.cookieOf(expired);
    assertEquals(Rcode.NOERROR, ask(false, again).getRcode());
    // A query without EDNS gets no OPT, so no cookie, and is answered as before.
    Message plain =
        server(false)
            .send(
                Message.newQuery(
                    org.xbill.DNS.Record.newRecord(
                        org.xbill.DNS.Name.fromString("www.example.test."),
                        org.xbill.DNS.Type.A,
                        org.xbill.DNS.DClass.IN)));
    assertEquals(Rcode.NOERROR, plain.getRcode());
    assertNull(plain.getOPT());
  }

  @Test
  void unknownServerCookieGetsAFreshOneOrBadcookieWhenRequired() throws Exception {
    CookieOption garbage = new CookieOption(CLIENT, new byte[] {1, 0, 0, 0, 9, 9, 9, 9, 1, 2, 3});
    Message answered = ask(false, garbage);
    assertEquals(Rcode.NOERROR, answered.getRcode());
    assertEquals(1, answered.getSection(Section.ANSWER).size());
    CookieOption fresh = RateLimitTest.cookieOf(answered);
    assertEquals(16, fresh.getServerCookie().orElseThrow().length);

    requireCookies("");
    // Over UDP: BADCOOKIE (extended rcode 23), no answer, and a fresh cookie to retry with.
    Message bad = ask(false, garbage);
    assertEquals(Rcode.BADCOOKIE, bad.getRcode());
    assertEquals(0, bad.getSection(Section.ANSWER).size());
    CookieOption retry = RateLimitTest.cookieOf(bad);
    Message ok = ask(false, retry);
    assertEquals(Rcode.NOERROR, ok.getRcode());
    assertEquals(1, ok.getSection(Section.ANSWER).size());
    // A client cookie alone is BADCOOKIE over UDP too, but TCP proves the address: answered.
    assertEquals(Rcode.BADCOOKIE, ask(false, new CookieOption(CLIENT)).getRcode());
    Message tcp = ask(true, garbage);
    assertEquals(Rcode.NOERROR, tcp.getRcode());
    assertEquals(1, tcp.getSection(Section.ANSWER).size());
    // Queries without a cookie are answered as before.
    assertEquals(Rcode.NOERROR, ask(false).getRcode());
  }

  @Test
  void previousSecretIsAcceptedAfterRotation() throws Exception {
    CookieOption old = RateLimitTest.cookieOf(ask(false, new CookieOption(CLIENT)));
    Path state = dir.resolve("state");
    Files.move(state.resolve("cookie.secret"), state.resolve("cookie.secret.previous"));
    // The new secret is created on reload, as on a first start.
    requireCookies(", previousSecretFile: cookie.secret.previous");
    assertTrue(Files.exists(state.resolve("cookie.secret")));
    Message accepted = ask(false, old);
    assertEquals(Rcode.NOERROR, accepted.getRcode());
    CookieOption current = RateLimitTest.cookieOf(accepted);
    // Made with the previous secret: accepted, and replaced by one of the current secret.
    assertFalse(
        Arrays.equals(
            old.getServerCookie().orElseThrow(), current.getServerCookie().orElseThrow()));
    assertEquals(Rcode.NOERROR, ask(false, current).getRcode());

    // Once the previous secret is dropped, its cookies are no longer valid.
    requireCookies("");
    assertEquals(Rcode.BADCOOKIE, ask(false, old).getRcode());
    assertEquals(Rcode.NOERROR, ask(false, current).getRcode());
  }

  @Test
  void malformedCookieIsFormerr() throws Exception {
    for (int length : new int[] {0, 7, 9, 12, 15, 41}) {
      Message m = ask(false, new GenericEDNSOption(10, new byte[length]));
      assertEquals(Rcode.FORMERR, m.getRcode(), "cookie of " + length + " bytes");
      assertEquals(0, m.getSection(Section.ANSWER).size());
    }
    for (int length : new int[] {8, 16, 40}) {
      assertEquals(
          Rcode.NOERROR, ask(false, new GenericEDNSOption(10, new byte[length])).getRcode());
    }
  }

  @Test
  void badSecretFilesAreNamedConfigurationErrors() throws Exception {
    Path state = dir.resolve("state");
    Files.writeString(state.resolve("short.secret"), "abcd\n");
    Files.setPosixFilePermissions(
        state.resolve("short.secret"), PosixFilePermissions.fromString("rw-------"));
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> server.reload(config("enabled: true, secretFile: short.secret"), dir));
    assertTrue(e.getMessage().contains("dns.cookies.secretFile"), e.getMessage());
    assertTrue(e.getMessage().contains("32 hex digits"), e.getMessage());
    e =
        assertThrows(
            ConfigException.class,
            () -> server.reload(config("enabled: true, previousSecretFile: gone"), dir));
    assertTrue(e.getMessage().contains("dns.cookies.previousSecretFile"), e.getMessage());
    assertTrue(e.getMessage().contains("does not exist"), e.getMessage());
  }

  private void requireCookies(String extra) throws Exception {
    server.reload(config("enabled: true, require: true" + extra), dir);
  }

  private SimpleResolver server(boolean tcp) {
    SimpleResolver r = server.resolver(tcp);
    r.setEDNS(-1);
    r.setIgnoreTruncation(true);
    return r;
  }

  private Message ask(boolean tcp, EDNSOption... options) throws IOException {
    return server(tcp).send(RateLimitTest.query("www.example.test.", options));
  }
}
