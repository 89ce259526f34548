package io.sluice.admin.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Vantage names come from probe agents' reports, so the probe path gauge keeps at most {@value
 * MicrometerGslbMetrics#MAX_VANTAGES} of them as labels, in a real Prometheus scrape.
 */
class VantageLabelBoundTest {
  @Test
  void vantageNamesBeyondTheBoundShareOneOtherSeries() {
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      int names = MicrometerGslbMetrics.MAX_VANTAGES + 50;
      for (int i = 0; i < names; i++) {
        metrics.gslb().probePathImpaired("agent-" + i, true);
      }
      // A name seen before the bound keeps its own series.
      metrics.gslb().probePathImpaired("agent-0", false);
      Map<String, Double> series =
          PrometheusText.parse(metrics.scrape()).entrySet().stream()
              .filter(e -> e.getKey().startsWith("sluice_probe_path_impaired{"))
              .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
      assertEquals(
          MicrometerGslbMetrics.MAX_VANTAGES + 1, series.size(), series.keySet().toString());
      assertEquals(
          1.0,
          series.get(
              PrometheusText.key(
                  "sluice_probe_path_impaired",
                  Map.of("vantage", MicrometerGslbMetrics.OTHER_VANTAGE))));
      assertEquals(
          0.0,
          series.get(
              PrometheusText.key("sluice_probe_path_impaired", Map.of("vantage", "agent-0"))));
    }
  }
}
