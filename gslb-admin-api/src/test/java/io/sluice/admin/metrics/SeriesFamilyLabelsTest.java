package io.sluice.admin.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Series of different families with the same label set share its text, and only then. */
class SeriesFamilyLabelsTest {
  private static String scrape(SeriesFamily f) {
    ScrapeBuffer out = new ScrapeBuffer(256);
    f.writeTo(out);
    return new String(out.toByteArray(), StandardCharsets.UTF_8);
  }

  @Test
  void oneServicesSeriesShareTheirLabelTextAndEachFamilyWritesItsOwnValues() {
    SeriesFamily frozen = new SeriesFamily("t_frozen", SeriesFamily.Type.GAUGE, "f", "service");
    SeriesFamily ramp = new SeriesFamily("t_ramp", SeriesFamily.Type.GAUGE, "r", "service");
    SeriesFamily pools =
        new SeriesFamily("t_pool", SeriesFamily.Type.GAUGE, "p", "service", "pool");
    SeriesFamily.Gauge a1 = frozen.gauge("a.test.");
    SeriesFamily.Gauge a2 = ramp.gauge("a.test.");
    SeriesFamily.Gauge b2 = ramp.gauge("b.test.");
    SeriesFamily.Gauge ap = pools.gauge("a.test.", "p1");
    SeriesFamily.Gauge b1 = frozen.gauge("b.test.");
    a1.set(1);
    a2.set(2);
    b2.set(3);
    ap.set(4);
    b1.set(5);

    assertSame(a1.labels(), a2.labels(), "the same label set, one copy");
    assertEquals(
        "# HELP t_frozen f\n# TYPE t_frozen gauge\n"
            + "t_frozen{service=\"a.test.\"} 1.0\nt_frozen{service=\"b.test.\"} 5.0\n",
        scrape(frozen));
    assertEquals(
        "# HELP t_ramp r\n# TYPE t_ramp gauge\n"
            + "t_ramp{service=\"a.test.\"} 2.0\nt_ramp{service=\"b.test.\"} 3.0\n",
        scrape(ramp));
    assertEquals(
        "# HELP t_pool p\n# TYPE t_pool gauge\nt_pool{pool=\"p1\",service=\"a.test.\"} 4.0\n",
        scrape(pools));
  }
}
