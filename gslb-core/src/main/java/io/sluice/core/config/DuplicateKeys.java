package io.sluice.core.config;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import java.util.ArrayDeque;
import java.util.Deque;

/**
 * Recognises the parser's duplicate-key error (strict duplicate detection is on for configuration
 * files and API bodies, so a repeated key is never "last one wins") and names where it stands.
 */
public final class DuplicateKeys {
  private DuplicateKeys() {}

  /**
   * The path of the repeated key, such as {@code zones[0].records[3].ttl}, when {@code e} is a
   * duplicate-key error; null otherwise.
   */
  public static String pathOf(JsonProcessingException e) {
    String msg = e.getOriginalMessage();
    if (msg == null
        || !msg.startsWith("Duplicate field")
        || !(e.getProcessor() instanceof JsonParser p)) {
      return null;
    }
    Deque<String> parts = new ArrayDeque<>();
    for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inArray()) {
        parts.addFirst("[" + Math.max(0, c.getCurrentIndex()) + "]");
      } else if (c.getCurrentName() != null) {
        parts.addFirst("." + c.getCurrentName());
      }
    }
    String path = String.join("", parts);
    return path.startsWith(".") ? path.substring(1) : path;
  }

  /** The repeated key itself: the last part of {@code path}. */
  public static String keyOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? path : path.substring(dot + 1);
  }
}
