package io.sluice.core.traffic;

import static io.sluice.core.traffic.TrafficControllerTest.ALICE;
import static io.sluice.core.traffic.TrafficControllerTest.RAMP;
import static io.sluice.core.traffic.TrafficControllerTest.events;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.EndpointConfig;
import io.sluice.core.config.NotificationsConfig;
import io.sluice.core.config.ObservabilityConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.CommandRejectedException;
import io.sluice.core.control.Problem;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Dynamic members in the traffic state: added, re-weighted and removed by commands, audited,
 * durable across a restart, refused with every problem at once, and served on top of the
 * configuration by {@code SluiceConfig.withDynamicMembers}.
 */
class DynamicMembersTest {
  @TempDir Path dir;

  @Test
  void membersAreKeptAuditedAndServedOnTopOfTheConfiguration() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      int[] changes = {0};
      f.controller().onMembersChanged(() -> changes[0]++);
      f.controller().setMember(ALICE, "standby", "i-1", "198.51.100.7", 3, "scale out", null);
      f.controller().setMember(ALICE, "standby", "i-1", "198.51.100.7", 5, "re-weight", null);
      assertEquals(2, changes[0], "each change of the members is announced");
      assertEquals(Set.of("i-1"), f.controller().dynamicMembers("standby"));
      assertEquals(1, events(f, "member-add").size());
      assertEquals(1, events(f, "member-update").size());

      f.reopen();
      Map<String, List<EndpointConfig>> members = f.controller().state().members();
      assertEquals(5, members.get("standby").get(0).weight(), "durable across a restart");
      List<EndpointConfig> served =
          f.store.current().config().withDynamicMembers(members).pools().get("standby").endpoints();
      assertEquals(List.of("a", "i-1"), served.stream().map(EndpointConfig::id).toList());
      // Sections the members do not touch stay as the file sets them (not at their defaults).
      SluiceConfig base = f.store.current().config();
      SluiceConfig file =
          base.toBuilder()
              .notifications(
                  new NotificationsConfig(List.of(), 17, java.time.Duration.ofSeconds(9)))
              .observability(
                  new ObservabilityConfig(
                      null, null, new ObservabilityConfig.Dnstap("dnstap.fstrm", null, 64, "n1")))
              .build();
      SluiceConfig withMembers = file.withDynamicMembers(members);
      assertEquals(file.notifications(), withMembers.notifications(), "webhooks kept");
      assertEquals(file.observability(), withMembers.observability(), "shadow and dnstap kept");
      assertEquals(file.withDynamicMembers(Map.of()), file);

      f.controller().drain(ALICE, "standby/i-1", true, "bad disk", null);
      f.controller().removeMember(ALICE, "standby", "i-1", "scale in", null);
      assertTrue(f.controller().state().members().isEmpty());
      assertTrue(f.store.current().traffic().drained().isEmpty(), "its drain goes with it");
    }
  }

  @Test
  void badMembersAreRefusedWithEveryProblem() throws Exception {
    try (TrafficFixture f = new TrafficFixture(dir, RAMP)) {
      CommandRejectedException e =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().setMember(ALICE, "primary", "a", "nope", -1, "x", null));
      assertEquals(
          List.of("name", "address", "weight"),
          e.problems().stream().map(Problem::field).toList(),
          e.getMessage());
      CommandRejectedException pool =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().setMember(ALICE, "mars", "x y", null, null, "x", null));
      assertEquals(
          List.of("pool", "name", "address"),
          pool.problems().stream().map(Problem::field).toList());
      CommandRejectedException none =
          assertThrows(
              CommandRejectedException.class,
              () -> f.controller().removeMember(ALICE, "primary", "a", "x", null));
      assertEquals("name", none.problems().get(0).field(), "a file endpoint is not a member");
    }
  }
}
