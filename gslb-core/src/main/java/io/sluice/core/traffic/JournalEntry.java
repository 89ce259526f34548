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
 */
record JournalEntry(ControlState state, AuditEvent audit, List<SwitchRecord> switches) {

  static JournalEntry decode(ObjectMapper json, byte[] bytes) throws IOException {
    JsonNode tree = json.readTree(bytes);
    if (tree.has("state")) {
      return json.treeToValue(tree, JournalEntry.class);
    }
    return new JournalEntry(json.treeToValue(tree, ControlState.class), null, null);
  }
}
