package io.sluice.core.config;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Finds every repeated key in a document and names where it stands, for configuration files and API
 * bodies alike, so a repeated key is never "last one wins".
 */
public final class DuplicateKeys {
  private DuplicateKeys() {}

  /** The path of the context's current key: {@code zones[0].records[3].ttl}. */
  private static String path(JsonStreamContext context) {
    Deque<String> parts = new ArrayDeque<>();
    for (JsonStreamContext c = context; c != null && !c.inRoot(); c = c.getParent()) {
      if (c.inArray()) {
        parts.addFirst("[" + Math.max(0, c.getCurrentIndex()) + "]");
      } else if (c.getCurrentName() != null) {
        parts.addFirst("." + c.getCurrentName());
      }
    }
    String path = String.join("", parts);
    return path.startsWith(".") ? path.substring(1) : path;
  }

  /**
   * The paths of every repeated key in {@code text}, in order, read with a parser of {@code
   * factory} that does not itself refuse repeated keys.
   */
  public static List<String> find(JsonFactory factory, String text) throws IOException {
    List<String> found = new ArrayList<>();
    Deque<Set<String>> keys = new ArrayDeque<>();
    try (JsonParser p = factory.createParser(text)) {
      for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
        switch (t) {
          case START_OBJECT -> keys.push(new HashSet<>());
          case END_OBJECT -> keys.pop();
          case FIELD_NAME -> {
            if (!keys.peek().add(p.currentName())) {
              found.add(path(p.getParsingContext()));
            }
          }
          default -> {}
        }
      }
    }
    return found;
  }

  /** The repeated key itself: the last part of {@code path}. */
  public static String keyOf(String path) {
    int dot = path.lastIndexOf('.');
    return dot < 0 ? path : path.substring(dot + 1);
  }
}
