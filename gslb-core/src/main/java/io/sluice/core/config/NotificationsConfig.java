package io.sluice.core.config;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.net.URI;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The {@code notifications:} section: webhooks told about every audited change (failovers and their
 * steps, verdict changes, freezes, drills, ...) from a durable outbox in the state directory, and
 * the bounds of that outbox. Absent, nothing is sent.
 */
public record NotificationsConfig(
    List<WebhookConfig> webhooks, Integer outboxLimit, Duration maxBackoff) {

  private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?");
  // Event types are the audit actions (kebab-case); '*' matches any run of characters.
  private static final Pattern EVENT = Pattern.compile("[a-z0-9*][a-z0-9*-]*");

  public NotificationsConfig {
    webhooks = Lists.copy(webhooks);
    outboxLimit = outboxLimit == null ? 10_000 : outboxLimit;
    maxBackoff = maxBackoff == null ? Duration.ofMinutes(5) : maxBackoff;
  }

  /** No webhooks. */
  public static NotificationsConfig defaults() {
    return new NotificationsConfig(null, null, null);
  }

  /** How a webhook's body is shaped. */
  public enum Format {
    /** The event as Sluice's own JSON object. */
    @JsonProperty("json")
    JSON,
    /** A chat message: {@code {"text": ...}} (Slack, Mattermost, Rocket.Chat incoming hooks). */
    @JsonProperty("slack")
    SLACK,
    /** A PagerDuty Events API v2 event (trigger, dedup key = the event id). */
    @JsonProperty("pagerduty")
    PAGERDUTY;

    @Override
    public String toString() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One receiver: where, how it is signed, which events and services, in which shape. */
  public record WebhookConfig(
      String name,
      String url,
      String secretFile,
      String routingKeyFile,
      List<String> events,
      List<String> services,
      Duration timeout,
      Format format) {

    public WebhookConfig {
      events = events == null ? List.of("*") : List.copyOf(events);
      services = Lists.copy(services);
      timeout = timeout == null ? Duration.ofSeconds(5) : timeout;
      format = format == null ? Format.JSON : format;
    }

    /** Whether an event of {@code type} for {@code service} (null: node-wide) goes here. */
    public boolean wants(String type, String service) {
      if (!services.isEmpty() && (service == null || !services.contains(service))) {
        return false;
      }
      for (String pattern : events) {
        if (glob(pattern, type)) {
          return true;
        }
      }
      return false;
    }

    private static boolean glob(String pattern, String text) {
      return Pattern.matches(
          ("\\Q" + pattern + "\\E").replace("*", "\\E.*\\Q"), text == null ? "" : text);
    }

    void validate(String path, SluiceConfig root, Set<String> serviceNames, Problems p) {
      if (p.required(Problems.child(path, "name"), name) && !NAME.matcher(name).matches()) {
        p.add(
            Problems.child(path, "name"),
            "must be 1-63 lower-case letters, digits or '-' (not at either end), was '"
                + name
                + "'");
      }
      if (p.required(Problems.child(path, "url"), url)) {
        try {
          URI u = URI.create(url);
          if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())
              || u.getHost() == null) {
            p.add(
                Problems.child(path, "url"),
                "must be an http:// or https:// URL, was '" + url + "'");
          }
        } catch (IllegalArgumentException e) {
          p.add(Problems.child(path, "url"), "is not a URL: '" + url + "'");
        }
      }
      if (format == Format.JSON) {
        p.required(Problems.child(path, "secretFile"), secretFile);
      }
      readable(Problems.child(path, "secretFile"), secretFile, root, p);
      if (format == Format.PAGERDUTY) {
        p.required(Problems.child(path, "routingKeyFile"), routingKeyFile);
      } else if (routingKeyFile != null) {
        p.add(Problems.child(path, "routingKeyFile"), "is only used with format: pagerduty");
      }
      readable(Problems.child(path, "routingKeyFile"), routingKeyFile, root, p);
      if (events.isEmpty()) {
        p.add(Problems.child(path, "events"), "must name at least one event type (or '*')");
      }
      for (int i = 0; i < events.size(); i++) {
        String e = events.get(i);
        if (e == null || !EVENT.matcher(e).matches()) {
          p.add(
              Problems.index(Problems.child(path, "events"), i),
              "must be an event type such as failover-start, or a pattern such as 'ramp-*' or"
                  + " '*', was '"
                  + e
                  + "'");
        }
      }
      for (int i = 0; i < services.size(); i++) {
        if (!serviceNames.contains(services.get(i))) {
          p.add(
              Problems.index(Problems.child(path, "services"), i),
              "unknown service '" + services.get(i) + "'");
        }
      }
      if (timeout.compareTo(Duration.ofMillis(100)) < 0
          || timeout.compareTo(Duration.ofSeconds(60)) > 0) {
        p.add(
            Problems.child(path, "timeout"),
            "must be between 100ms and 60s, was " + DurationParser.format(timeout));
      }
    }

    private static void readable(String path, String file, SluiceConfig root, Problems p) {
      if (file == null) {
        return;
      }
      if (file.isBlank()) {
        p.add(path, "must not be empty");
      } else if (!Files.isReadable(root.resolve(file))) {
        p.add(path, "cannot be read: " + root.resolve(file));
      }
    }
  }

  void validate(String path, SluiceConfig root, Problems p) {
    Set<String> services = new HashSet<>();
    for (ZoneConfig z : root.zones()) {
      for (ServiceConfig s : z.services()) {
        services.add(s.fqdn(z.origin()));
      }
    }
    Set<String> names = new HashSet<>();
    for (int i = 0; i < webhooks.size(); i++) {
      String at = Problems.index(Problems.child(path, "webhooks"), i);
      WebhookConfig w = webhooks.get(i);
      if (w == null) {
        p.add(at, "must be a webhook");
        continue;
      }
      w.validate(at, root, services, p);
      if (w.name() != null && !names.add(w.name())) {
        p.add(Problems.child(at, "name"), "repeats the webhook name '" + w.name() + "'");
      }
    }
    p.range(Problems.child(path, "outboxLimit"), outboxLimit, 100, 1_000_000);
    if (maxBackoff.compareTo(Duration.ofSeconds(1)) < 0
        || maxBackoff.compareTo(Duration.ofHours(1)) > 0) {
      p.add(
          Problems.child(path, "maxBackoff"),
          "must be between 1s and 1h, was " + DurationParser.format(maxBackoff));
    }
  }
}
