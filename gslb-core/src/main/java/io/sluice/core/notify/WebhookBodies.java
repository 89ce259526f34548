package io.sluice.core.notify;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.config.NotificationsConfig.Format;
import io.sluice.core.control.SwitchRecord;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** The bodies of the three formats, their one-line summary, and the HMAC signature. */
final class WebhookBodies {
  private WebhookBodies() {}

  /** The body of {@code e} in {@code format} ({@code routingKey}: PagerDuty's, else null). */
  static byte[] body(ObjectMapper json, WebhookEvent e, Format format, String routingKey)
      throws IOException {
    return switch (format) {
      case JSON -> json.writeValueAsBytes(e);
      case SLACK -> json.writeValueAsBytes(Map.of("text", summary(e)));
      case PAGERDUTY -> {
        Map<String, Object> payload = new LinkedHashMap<>();
        payload.put("summary", truncate(summary(e), 1024));
        payload.put("source", e.node());
        payload.put("severity", severity(e.type()));
        payload.put("timestamp", e.time());
        if (e.service() != null) {
          payload.put("component", e.service());
        }
        payload.put("group", "sluice");
        payload.put("class", e.type());
        payload.put("custom_details", e);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("routing_key", routingKey);
        body.put("event_action", "trigger");
        body.put("dedup_key", e.id());
        body.put("payload", payload);
        yield json.writeValueAsBytes(body);
      }
    };
  }

  /**
   * One line a person reads in a chat or a page: what happened, to which service, why, by whom, and
   * where the shift stands.
   */
  static String summary(WebhookEvent e) {
    StringBuilder sb = new StringBuilder("[sluice] ").append(e.type());
    sb.append(' ').append(e.service() == null ? "(node-wide)" : e.service());
    if (e.reason() != null && !e.reason().isBlank()) {
      sb.append(": ").append(e.reason());
    }
    sb.append(" (by ").append(e.actor()).append(" on ").append(e.node()).append(')');
    List<SwitchRecord> switches = e.switches();
    if (!switches.isEmpty()) {
      SwitchRecord r = switches.get(switches.size() - 1);
      sb.append(" | ")
          .append(r.trigger())
          .append(' ')
          .append(String.join(",", r.from()))
          .append(" -> ")
          .append(String.join(",", r.to()))
          .append(", ")
          .append(r.outcome());
      if (!r.steps().isEmpty() && r.steps().get(r.steps().size() - 1).get("percent") != null) {
        sb.append(' ').append(r.steps().get(r.steps().size() - 1).get("percent")).append(" %");
      }
    }
    return sb.toString();
  }

  /**
   * PagerDuty's severity, from the words of the event type, so that new kinds get one too: a
   * failure, rollback or failover is an error, a hold, freeze or drain a warning, the rest info.
   */
  static String severity(String type) {
    String t = type == null ? "" : type.toLowerCase(Locale.ROOT);
    if (t.contains("fail") || t.contains("roll") || t.contains("down")) {
      return "error";
    }
    if (t.contains("held") || t.contains("hold") || t.contains("freeze") || t.contains("drain")) {
      return "warning";
    }
    return "info";
  }

  private static String truncate(String s, int max) {
    return s.length() <= max ? s : s.substring(0, max - 1) + "…";
  }

  /**
   * The {@code Sluice-Signature} header: {@code t=<unix seconds>,v1=<hex HMAC-SHA256 of
   * "<t>.<body>">}. Binding the time into the MAC lets a receiver refuse replays of old bodies.
   */
  static String signature(byte[] secret, long unixSeconds, byte[] body) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret, "HmacSHA256"));
      mac.update((unixSeconds + ".").getBytes(StandardCharsets.US_ASCII));
      return "t=" + unixSeconds + ",v1=" + HexFormat.of().formatHex(mac.doFinal(body));
    } catch (NoSuchAlgorithmException | InvalidKeyException e) {
      throw new IllegalStateException("HMAC-SHA256 is not available", e);
    }
  }
}
