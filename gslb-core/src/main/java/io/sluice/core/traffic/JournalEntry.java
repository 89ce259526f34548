package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.control.AuditEvent;
import io.sluice.core.control.SwitchRecord;
import java.io.IOException;
import java.util.List;

/**
 * One journal record of the traffic state: the whole state after a change, the audit event of that
 * change and the switch records it finished, committed with one fsync so that no durable change is
 * ever without its audit record (the audit log is written from it, and re-derived from it after a
 * restart if that write was lost); its sequence number is assigned by the audit log. The switch
 * records are written to {@code switches.jsonl} the same way. Records of the first release held the
 * bare state; they still load, with no audit event.
 *
 * <p>In a cluster the same record is the shared {@code state}: {@code origin} names the node that
 * made the change. The local copy also holds the shared store's revision it was committed at
 * ({@code sharedRevision}, 0 in the shared record itself and on a single node) and the safety
 * actions this node applied while cut off and has not yet re-applied to the shared state.
 */
record JournalEntry(
    ControlState state,
    AuditEvent audit,
    List<SwitchRecord> switches,
    String origin,
    long sharedRevision,
    List<LocalAction> localActions) {

  JournalEntry {
    switches = switches == null ? List.of() : List.copyOf(switches);
    localActions = localActions == null ? List.of() : List.copyOf(localActions);
  }

  JournalEntry(ControlState state, AuditEvent audit, List<SwitchRecord> switches) {
    this(state, audit, switches, null, 0, List.of());
  }

  /** This record as kept locally: at shared revision {@code revision}, with {@code pending}. */
  JournalEntry local(long revision, List<LocalAction> pending) {
    return new JournalEntry(state, audit, switches, origin, revision, pending);
  }

  static JournalEntry decode(ObjectMapper json, byte[] bytes) throws IOException {
    JsonNode tree = json.readTree(bytes);
    if (tree.has("state")) {
      return json.treeToValue(tree, JournalEntry.class);
    }
    return new JournalEntry(json.treeToValue(tree, ControlState.class), null, null);
  }
}
