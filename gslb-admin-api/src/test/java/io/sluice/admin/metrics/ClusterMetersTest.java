package io.sluice.admin.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.spi.ClusterMembers;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class ClusterMetersTest {

  @Test
  void aClusteredNodeExposesItsRevisionLagRoleAndContactFromTheFirstScrape() {
    long now = System.currentTimeMillis();
    AtomicBoolean leads = new AtomicBoolean(true);
    AtomicBoolean connected = new AtomicBoolean(true);
    ClusterMembers c =
        new ClusterMembers() {
          @Override
          public List<Member> members() {
            return List.of(new Member("ns1", "eu", null, null, leads.get(), 40, true, now));
          }

          @Override
          public Optional<String> self() {
            return Optional.of("ns1");
          }

          @Override
          public long sharedRevision() {
            return 45;
          }

          @Override
          public boolean connected() {
            return connected.get();
          }

          @Override
          public long lastContactMillis() {
            return now - 30_000;
          }
        };
    try (PrometheusMetrics metrics = new PrometheusMetrics()) {
      ClusterMeters.register(metrics.registry(), c);
      Map<String, Double> m = PrometheusText.parse(metrics.scrape());
      assertEquals(40.0, m.get("sluice_cluster_applied_revision{}"));
      assertEquals(5.0, m.get("sluice_cluster_lag_revisions{}"));
      assertEquals(1.0, m.get("sluice_cluster_leader{}"));
      assertEquals(1.0, m.get("sluice_cluster_connected{}"));
      assertTrue(m.get("sluice_cluster_last_contact_age_seconds{}") >= 30.0);

      leads.set(false);
      connected.set(false);
      m = PrometheusText.parse(metrics.scrape());
      assertEquals(0.0, m.get("sluice_cluster_leader{}"));
      assertEquals(0.0, m.get("sluice_cluster_connected{}"));
    }
  }
}
