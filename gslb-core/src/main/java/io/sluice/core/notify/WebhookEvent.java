package io.sluice.core.notify;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.SwitchRecord;
import java.util.List;
import java.util.Map;

/**
 * One notification as receivers get it (the {@code json} format's body) and as the outbox keeps it.
 * Derived from an audit event, whatever its kind, so a new kind of change is sent without code
 * here: {@code type} is the audit action ({@code failover-start}, {@code ramp-step}, {@code
 * verdict-change}, {@code freeze}, ...).
 *
 * <p>{@code id} is the idempotency key, equal on every attempt and every node: {@code
 * <source>/state-<revision>} for a change of the shared traffic state (the revision is the same on
 * every node of a cluster), {@code <source>/<node>-<seq>} for an event only this node records
 * (verdicts, configuration reloads, loads pushed to it). {@code source} tells deployments apart: a
 * cluster's etcd prefix, or a single node's own random id. {@code seq} is the node's audit sequence
 * number, the order of the outbox.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record WebhookEvent(
    String id,
    String type,
    String service,
    long timeMillis,
    String time,
    String node,
    String actor,
    String role,
    String reason,
    Long revision,
    long versionBefore,
    long versionAfter,
    long seq,
    Map<String, Object> details,
    List<SwitchRecord> switches) {

  public WebhookEvent {
    details = details == null ? Map.of() : details;
    switches = switches == null ? List.of() : List.copyOf(switches);
  }

  /**
   * The event of {@code a} recorded on {@code node} of deployment {@code source}, with the switch
   * records it concerns.
   */
  static WebhookEvent of(AuditEvent a, List<SwitchRecord> switches, String source, String node) {
    Map<String, Object> d = a.details() == null ? Map.of() : a.details();
    Long revision = shared(d) && d.get("revision") instanceof Number n ? n.longValue() : null;
    String origin = d.get("origin") instanceof String o ? o : node;
    return new WebhookEvent(
        source + "/" + (revision != null ? "state-" + revision : node + "-" + a.seq()),
        a.action(),
        a.service(),
        a.timeMillis(),
        java.time.Instant.ofEpochMilli(a.timeMillis()).toString(),
        origin,
        a.actor(),
        a.role(),
        a.reason(),
        revision,
        a.versionBefore(),
        a.versionAfter(),
        a.seq(),
        d,
        switches);
  }

  /**
   * Whether the event is a change of the traffic state every node of a cluster holds (journalled,
   * with its revision), rather than one this node alone recorded. A safety action applied on a node
   * cut off from its cluster is its own until reconciled (its revision may be reused).
   */
  private static boolean shared(Map<String, Object> d) {
    return d.get("revision") instanceof Number && !Boolean.TRUE.equals(d.get("local"));
  }

  /** Whether every node of a cluster records this event under the same id. */
  boolean cluster() {
    return revision != null;
  }

  /** The ordering lane: events of one service are delivered in order, node-wide events too. */
  String lane() {
    return service == null ? "" : service;
  }
}
