package io.sluice.dns.response;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.sluice.dns.zone.WireNames;
import org.junit.jupiter.api.Test;
import org.xbill.DNS.Name;
import org.xbill.DNS.Type;

/** The direct-mapped template cache: hits only on the same owner instance, name and type. */
class ResponseCacheTest {
  private static final Template T1 = Template.of(new byte[] {1});
  private static final Template T2 = Template.of(new byte[] {2});

  /** The key hash the responder uses: the question's wire hash. */
  private static int h(Name n) {
    byte[] w = n.toWire();
    return WireNames.hash(w, 0, w.length);
  }

  @Test
  void hitsIgnoreLetterCaseButNotOwnerOrType() throws Exception {
    ResponseCache cache = new ResponseCache(64);
    Object decision = new Object();
    Name lower = Name.fromString("www.example.test.");
    cache.put(decision, lower, h(lower), Type.A, T1);

    assertSame(
        T1,
        cache.get(
            decision,
            Name.fromString("WWW.Example.TEST."),
            h(Name.fromString("WWW.Example.TEST.")),
            Type.A));
    assertNull(cache.get(new Object(), lower, h(lower), Type.A), "another owner instance");
    assertNull(cache.get(null, lower, h(lower), Type.A), "zone data is not a decision");
    assertNull(cache.get(decision, lower, h(lower), Type.AAAA), "another type");
    assertNull(
        cache.get(
            decision,
            Name.fromString("mail.example.test."),
            h(Name.fromString("mail.example.test.")),
            Type.A));
  }

  @Test
  void isBoundedAndANewEntryReplacesAnOldOne() throws Exception {
    ResponseCache cache = new ResponseCache(1);
    Name a = Name.fromString("a.example.test.");
    Name b = Name.fromString("b.example.test.");
    cache.put(null, a, h(a), Type.A, T1);
    cache.put(null, b, h(b), Type.A, T2);
    assertNull(cache.get(null, a, h(a), Type.A));
    assertSame(T2, cache.get(null, b, h(b), Type.A));
  }

  @Test
  void sizeMustBeAPowerOfTwo() {
    assertThrows(IllegalArgumentException.class, () -> new ResponseCache(100));
  }
}
