package io.sluice.admin.rest;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.sluice.core.config.DuplicateKeys;
import io.sluice.core.config.JsonPaths;
import io.sluice.core.control.CommandProblems;
import java.io.IOException;
import java.lang.reflect.Array;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads request bodies strictly (unknown fields, repeated fields, wrong types and trailing data are
 * errors) and reports every such problem of a body at once, each naming its field, such as {@code
 * weights.eu-west-1}.
 */
final class JsonBodies {
  private static final byte[] EMPTY_OBJECT = {'{', '}'};

  /** Reads the tree as given, so the repeated keys can be reported with everything else. */
  private static final ObjectMapper LENIENT =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

  private final ObjectMapper mapper;

  JsonBodies(ObjectMapper mapper) {
    this.mapper = mapper;
    // The config mapper already refuses "5" for a number; a body must also refuse 5 for a string.
    for (CoercionInputShape shape :
        new CoercionInputShape[] {
          CoercionInputShape.Integer, CoercionInputShape.Float, CoercionInputShape.Boolean
        }) {
      mapper.coercionConfigFor(LogicalType.Textual).setCoercion(shape, CoercionAction.Fail);
    }
  }

  /** The body as {@code type}; an empty body reads as {@code {}}. Rejects it with every problem. */
  <T> T read(byte[] body, Class<T> type) {
    CommandProblems problems = new CommandProblems();
    T value = read(body, type, problems);
    if (!problems.isEmpty()) {
      throw ApiException.badRequest(problems.list());
    }
    return value;
  }

  /**
   * The body as the record {@code type}, adding every problem of it to {@code problems}: each
   * unknown, repeated or mistyped field (a field with a problem reads as null), so the caller can
   * add the command's own rules and reject the request once with all of them. A body that is not a
   * JSON object at all is rejected at once.
   */
  <T> T read(byte[] body, Class<T> type, CommandProblems problems) {
    byte[] json = body == null || body.length == 0 ? EMPTY_OBJECT : body;
    JsonNode tree;
    try {
      for (String path : DuplicateKeys.find(LENIENT.getFactory(), new String(json, UTF_8))) {
        problems.add(
            path,
            "duplicate field '" + DuplicateKeys.keyOf(path) + "': each field may appear once");
      }
      tree = LENIENT.readTree(json);
    } catch (JsonProcessingException e) {
      throw ApiException.badRequest(null, messageOf(e));
    } catch (IOException e) {
      throw ApiException.badRequest(null, "unreadable body: " + e.getMessage());
    }
    if (tree == null || !tree.isObject()) {
      throw ApiException.badRequest(
          null,
          "the body must be a JSON object, was " + (tree == null ? "empty" : tree.getNodeType()));
    }
    RecordComponent[] components = type.getRecordComponents();
    Set<String> known = new HashSet<>();
    for (RecordComponent c : components) {
      known.add(c.getName());
    }
    tree.fieldNames()
        .forEachRemaining(
            name -> {
              if (!known.contains(name)) {
                problems.add(name, "unknown field '" + name + "'");
              }
            });
    Object[] values = new Object[components.length];
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      types[i] = c.getType();
      JsonNode v = tree.get(c.getName());
      if (v == null || v.isNull()) {
        // A missing primitive reads as its default (0, false), as Jackson would bind it.
        values[i] = c.getType().isPrimitive() ? defaultOf(c.getType()) : null;
        continue;
      }
      values[i] = convert(mapper.constructType(c.getGenericType()), v, c.getName(), problems);
      if (values[i] == null && c.getType().isPrimitive()) {
        values[i] = defaultOf(c.getType());
      }
    }
    try {
      return type.getDeclaredConstructor(types).newInstance(values);
    } catch (InvocationTargetException e) {
      // The record refused the values (its constructor checks them): a bad request, not a bug.
      if (problems.isEmpty()) {
        problems.add(null, String.valueOf(e.getCause().getMessage()));
      }
      throw ApiException.badRequest(problems.list());
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("cannot build " + type.getSimpleName(), e);
    }
  }

  /**
   * {@code v} as {@code t}; a map or list is read entry by entry, so every bad entry is reported (a
   * bad entry reads as null, keeping the indexes of the others). Null when {@code v} is bad.
   */
  private Object convert(JavaType t, JsonNode v, String field, CommandProblems problems) {
    if (v.isObject() && t.isMapLikeType()) {
      Map<String, Object> out = new LinkedHashMap<>();
      for (Map.Entry<String, JsonNode> e : v.properties()) {
        JsonNode ev = e.getValue();
        out.put(
            e.getKey(),
            ev.isNull()
                ? null
                : convert(t.getContentType(), ev, field + "." + e.getKey(), problems));
      }
      return out;
    }
    if (v.isArray() && t.isCollectionLikeType()) {
      List<Object> out = new ArrayList<>();
      for (JsonNode ev : v) {
        String at = field + "[" + out.size() + "]";
        out.add(ev.isNull() ? null : convert(t.getContentType(), ev, at, problems));
      }
      return out;
    }
    try {
      return mapper.treeToValue(v, t);
    } catch (JsonProcessingException e) {
      String sub = fieldOf(e);
      problems.add(
          sub == null ? field : field + (sub.startsWith("[") ? "" : ".") + sub, messageOf(e));
      return null;
    }
  }

  private static Object defaultOf(Class<?> primitive) {
    return Array.get(Array.newInstance(primitive, 1), 0);
  }

  private static String fieldOf(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException jm)) {
      return null;
    }
    String path = JsonPaths.of(jm.getPath());
    return path.isEmpty() ? null : path;
  }

  private static String messageOf(JsonProcessingException e) {
    if (e instanceof UnrecognizedPropertyException u) {
      return "unknown field '" + u.getPropertyName() + "'";
    }
    if (e instanceof ValueInstantiationException v && v.getCause() != null) {
      return v.getCause().getMessage();
    }
    if (e instanceof MismatchedInputException m && m.getTargetType() != null) {
      return "expected " + describe(m.getTargetType());
    }
    String msg = e.getOriginalMessage();
    int nl = msg == null ? -1 : msg.indexOf('\n');
    return "malformed JSON: " + (nl < 0 ? msg : msg.substring(0, nl));
  }

  private static String describe(Class<?> t) {
    if (t == Integer.class || t == Long.class || t == int.class || t == long.class) {
      return "a whole number";
    }
    if (t == Double.class || t == double.class) {
      return "a number";
    }
    if (t == Boolean.class || t == boolean.class) {
      return "true or false";
    }
    if (t == String.class) {
      return "a string";
    }
    if (java.util.Collection.class.isAssignableFrom(t)) {
      return "a list";
    }
    return "an object";
  }
}
