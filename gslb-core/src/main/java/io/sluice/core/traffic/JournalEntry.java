package io.sluice.core.traffic;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.control.AuditEvent;
import java.io.IOException;

/**
 * One journal record of the traffic state: the whole state after a change and the audit event of
 * that change, committed with one fsync so that no durable change is ever without its audit record
 * (the audit log is written from it, and re-derived from it after a restart if that write was
 * lost); its sequence number is assigned by the audit log. Records of the first release held the
 * bare state; they still load, with no audit event.
 */
record JournalEntry(ControlState state, AuditEvent audit) {

  static JournalEntry decode(ObjectMapper json, byte[] bytes) throws IOException {
    JsonNode tree = json.readTree(bytes);
    if (tree.has("state")) {
      return json.treeToValue(tree, JournalEntry.class);
    }
    return new JournalEntry(json.treeToValue(tree, ControlState.class), null);
  }
}
