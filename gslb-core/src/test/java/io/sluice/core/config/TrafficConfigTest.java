package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class TrafficConfigTest {
  static final String PREFIX = "zones[0].services[0].traffic.";

  static SluiceConfig parse(String traffic) throws ConfigException {
    return OneService.parse("traffic", traffic);
  }

  @Test
  void defaults() throws Exception {
    TrafficConfig t = parse("{}").services().get(0).traffic();
    assertEquals(ShiftMode.AUTO, t.mode());
    assertEquals(List.of(1, 5, 20, 50, 100), t.steps());
    assertEquals(Duration.ofMinutes(5), t.window());
    assertEquals(Duration.ofSeconds(60), t.cooldown());
    assertEquals(10L, t.shiftTtl());
    assertEquals(Boolean.FALSE, t.autoFailback());
    assertEquals(Boolean.TRUE, t.gates().requireUp());
    assertEquals(0.05, t.gates().maxErrorRate());
    assertNull(t.gates().maxP99Millis());
    assertNull(t.gates().external());
    assertEquals(Duration.ofMinutes(10), t.confirmTimeout());
    assertEquals(ConfirmTimeout.REJECT, t.onConfirmTimeout());
    assertEquals(Duration.ofSeconds(5), t.ttlMargin());
    assertEquals(ConfirmScope.STEP, t.confirm());
  }

  @Test
  void externalGateIsRead() throws Exception {
    TrafficConfig t =
        parse("{ gates: { external: { url: 'http://127.0.0.1:9090', query: up, max: 1 } } }")
            .services()
            .get(0)
            .traffic();
    assertEquals("up", t.gates().external().query());
    assertEquals(Duration.ofSeconds(2), t.gates().external().timeout());
  }

  @Test
  void spellingsAreReadInAnyCase() throws Exception {
    TrafficConfig t =
        parse("{ mode: Auto-With-Confirm, onConfirmTimeout: PROCEED, confirm: Move }")
            .services()
            .get(0)
            .traffic();
    assertEquals(ShiftMode.AUTO_WITH_CONFIRM, t.mode());
    assertEquals(ConfirmTimeout.PROCEED, t.onConfirmTimeout());
    assertEquals(ConfirmScope.MOVE, t.confirm());
    assertEquals("auto-with-confirm", t.mode().toString());
  }

  @Test
  void everyBadSpellingIsReportedAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () -> parse("{ mode: sometimes, onConfirmTimeout: maybe, confirm: all, steps: [] }"));
    for (String field : List.of("mode", "onConfirmTimeout", "confirm", "steps")) {
      assertTrue(e.getMessage().contains(PREFIX + field + ": "), e.getMessage());
    }
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "{ gates: { maxErrorRate: 2 } } | gates.maxErrorRate: must be 0..1, was 2.0",
        "{ gates: { maxP99Millis: 0 } } | gates.maxP99Millis: must be above 0, was 0.0",
        "{ gates: { external: { query: up, max: 1 } } } | gates.external.url: is required",
        "{ gates: { external: { url: 'ftp://x', query: up, max: 1 } } } | gates.external.url: must be an http:// or https:// URL",
        "{ gates: { external: { url: 'http://x', max: 1 } } } | gates.external.query: is required",
        "{ gates: { external: { url: 'http://x', query: up } } } | gates.external.max: is required",
        "{ onConfirmTimeout: maybe } | onConfirmTimeout: must be one of reject, proceed, was \"maybe\"",
        "{ confirm: all } | confirm: must be one of step, move, was \"all\"",
        "{ mode: automatic } | mode: must be one of auto, auto-with-confirm, manual, was \"automatic\"",
        "{ confirmTimeout: 0s } | confirmTimeout: must be above 0",
        "{ steps: [10, 5, 100] } | steps[1]: steps must rise strictly within 1..100, was 5",
      })
  void invalidValuesNameTheirPath(String traffic, String expected) {
    ConfigException e = assertThrows(ConfigException.class, () -> parse(traffic));
    assertTrue(e.getMessage().contains(PREFIX + expected), e.getMessage());
  }
}
