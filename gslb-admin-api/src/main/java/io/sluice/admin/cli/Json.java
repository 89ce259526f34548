package io.sluice.admin.cli;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Map;

/**
 * The API's JSON for {@code sluice ctl}, read into and written from the same trees and bytes as an
 * {@link ObjectMapper}'s {@code readTree} and {@code writeValueAsBytes}, with Jackson's streaming
 * parser and generator only. Making an {@code ObjectMapper} sets up its type factory, date format
 * and the JDK's locale data, a sizeable part of a command's start-up; a body holding a value other
 * than text, numbers, booleans, lists and maps still goes through one.
 */
final class Json {
  private static final JsonFactory FACTORY = new JsonFactory();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** An {@code ObjectMapper}, made only for a body this class does not write itself. */
  private static final class Mapper {
    static final ObjectMapper INSTANCE = new ObjectMapper();
  }

  private Json() {}

  /** An empty object node. */
  static ObjectNode object() {
    return NODES.objectNode();
  }

  /** The tree of one JSON document; fails on anything but exactly one value. */
  static JsonNode read(String text) throws IOException {
    try (JsonParser p = FACTORY.createParser(text)) {
      JsonToken first = p.nextToken();
      if (first == null) {
        throw new IOException("no JSON value");
      }
      JsonNode node = value(p, first);
      if (p.nextToken() != null) {
        throw new IOException("more than one JSON value");
      }
      return node;
    }
  }

  private static JsonNode value(JsonParser p, JsonToken t) throws IOException {
    switch (t) {
      case START_OBJECT -> {
        ObjectNode o = NODES.objectNode();
        for (JsonToken n = p.nextToken(); n != JsonToken.END_OBJECT; n = p.nextToken()) {
          String name = p.currentName();
          o.set(name, value(p, p.nextToken()));
        }
        return o;
      }
      case START_ARRAY -> {
        ArrayNode a = NODES.arrayNode();
        for (JsonToken n = p.nextToken(); n != JsonToken.END_ARRAY; n = p.nextToken()) {
          a.add(value(p, n));
        }
        return a;
      }
      case VALUE_STRING -> {
        return NODES.textNode(p.getText());
      }
      case VALUE_NUMBER_INT -> {
        return switch (p.getNumberType()) {
          case INT -> NODES.numberNode(p.getIntValue());
          case LONG -> NODES.numberNode(p.getLongValue());
          default -> NODES.numberNode(p.getBigIntegerValue());
        };
      }
      case VALUE_NUMBER_FLOAT -> {
        return NODES.numberNode(p.getDoubleValue());
      }
      case VALUE_TRUE -> {
        return NODES.booleanNode(true);
      }
      case VALUE_FALSE -> {
        return NODES.booleanNode(false);
      }
      case VALUE_NULL -> {
        return NODES.nullNode();
      }
      default -> throw new IOException("unexpected JSON token " + t);
    }
  }

  /** {@code body} as UTF-8 JSON. */
  static byte[] write(Map<String, ?> body) throws IOException {
    if (!plain(body)) {
      return Mapper.INSTANCE.writeValueAsBytes(body);
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator g = FACTORY.createGenerator(out)) {
      write(g, body);
    }
    return out.toByteArray();
  }

  /** Whether {@code v} holds only what {@link #write(JsonGenerator, Object)} writes itself. */
  private static boolean plain(Object v) {
    if (v == null
        || v instanceof String
        || v instanceof Boolean
        || v instanceof Integer
        || v instanceof Long
        || v instanceof Short
        || v instanceof Byte
        || v instanceof Double
        || v instanceof Float
        || v instanceof BigInteger
        || v instanceof BigDecimal) {
      return true;
    }
    if (v instanceof Map<?, ?> m) {
      for (Map.Entry<?, ?> e : m.entrySet()) {
        if (!(e.getKey() instanceof String) || !plain(e.getValue())) {
          return false;
        }
      }
      return true;
    }
    if (v instanceof Iterable<?> list) {
      for (Object o : list) {
        if (!plain(o)) {
          return false;
        }
      }
      return true;
    }
    return false;
  }

  private static void write(JsonGenerator g, Object v) throws IOException {
    if (v == null) {
      g.writeNull();
    } else if (v instanceof String s) {
      g.writeString(s);
    } else if (v instanceof Boolean b) {
      g.writeBoolean(b);
    } else if (v instanceof Integer || v instanceof Short || v instanceof Byte) {
      g.writeNumber(((Number) v).intValue());
    } else if (v instanceof Long l) {
      g.writeNumber(l);
    } else if (v instanceof Double d) {
      g.writeNumber(d);
    } else if (v instanceof Float f) {
      g.writeNumber(f);
    } else if (v instanceof BigInteger i) {
      g.writeNumber(i);
    } else if (v instanceof BigDecimal d) {
      g.writeNumber(d);
    } else if (v instanceof Map<?, ?> m) {
      g.writeStartObject();
      for (Map.Entry<?, ?> e : m.entrySet()) {
        g.writeFieldName((String) e.getKey());
        write(g, e.getValue());
      }
      g.writeEndObject();
    } else {
      g.writeStartArray();
      for (Object o : (Iterable<?>) v) {
        write(g, o);
      }
      g.writeEndArray();
    }
  }
}
