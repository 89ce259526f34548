package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.core.config.NotificationsConfig.Format;
import io.sluice.core.config.NotificationsConfig.WebhookConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code notifications:} section: typed at the edge, every problem named by its path. */
class NotificationsConfigTest {
  private static final String ZONE =
      """
      pools:
        p1: { endpoints: [ { address: 192.0.2.1 } ] }
      zones:
        - origin: example.com.
          soa: { mname: ns1.example.com., rname: hostmaster.example.com. }
          ns: [ns1.example.com.]
          services:
            - { name: app, pools: [p1] }
      """;

  @TempDir Path dir;

  private SluiceConfig parse(String yaml) throws ConfigException {
    return ConfigLoader.parse(ZONE + yaml, "test.yaml", dir);
  }

  @Test
  void absentMeansNoWebhooksAndAWebhookGetsItsDefaults() throws Exception {
    assertTrue(parse("").notifications().webhooks().isEmpty());
    Files.writeString(dir.resolve("hook.secret"), "s3cret\n");
    NotificationsConfig n =
        parse(
                """
                notifications:
                  webhooks:
                    - { name: ops, url: "https://hooks.example.net/sluice", secretFile: hook.secret }
                    - name: chat
                      url: https://chat.example.net/hooks/T0/B0/x
                      format: slack
                      events: ["failover-*", freeze, unfreeze]
                      services: [app.example.com.]
                """)
            .notifications();
    assertEquals(10_000, n.outboxLimit());
    assertEquals(Duration.ofMinutes(5), n.maxBackoff());
    WebhookConfig ops = n.webhooks().get(0);
    assertEquals(Format.JSON, ops.format());
    assertEquals(List.of("*"), ops.events());
    assertEquals(Duration.ofSeconds(5), ops.timeout());
    assertTrue(ops.wants("verdict-change", null));
    WebhookConfig chat = n.webhooks().get(1);
    assertEquals(Format.SLACK, chat.format());
    assertTrue(chat.wants("failover-start", "app.example.com."));
    assertFalse(chat.wants("ramp-step", "app.example.com."));
    assertFalse(chat.wants("freeze", null), "a service filter leaves out node-wide events");
  }

  @Test
  void everyProblemOfTheSectionIsNamedAtOnce() {
    ConfigException e =
        assertThrows(
            ConfigException.class,
            () ->
                parse(
                    """
                    notifications:
                      outboxLimit: 5
                      maxBackoff: 2h
                      webhooks:
                        - { name: Ops!, url: "ftp://x", timeout: 90s, events: ["Fail over"] }
                        - { name: pd, url: "https://events.pagerduty.com/v2/enqueue", format: pagerduty, secretFile: missing.secret }
                        - { name: pd, url: "https://x.example/h", format: slack, routingKeyFile: k, services: [nope.example.com.] }
                        - { name: teams, url: "https://x.example/h", format: teams }
                    """));
    String m = e.getMessage();
    for (String expected :
        List.of(
            "notifications.outboxLimit: must be 100..1000000, was 5",
            "notifications.maxBackoff: must be between 1s and 1h, was 2h",
            "notifications.webhooks[0].name: must be 1-63 lower-case letters",
            "notifications.webhooks[0].url: must be an http:// or https:// URL, was 'ftp://x'",
            "notifications.webhooks[0].secretFile: is required",
            "notifications.webhooks[0].timeout: must be between 100ms and 60s, was 90s",
            "notifications.webhooks[0].events[0]: must be an event type",
            "notifications.webhooks[1].routingKeyFile: is required",
            "notifications.webhooks[1].secretFile: cannot be read",
            "notifications.webhooks[2].name: repeats the webhook name 'pd'",
            "notifications.webhooks[2].routingKeyFile: is only used with format: pagerduty",
            "notifications.webhooks[2].services[0]: unknown service 'nope.example.com.'",
            "notifications.webhooks[3].format")) {
      assertTrue(m.contains(expected), expected + " not in:\n" + m);
    }
  }
}
