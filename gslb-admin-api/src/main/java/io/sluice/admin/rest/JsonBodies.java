package io.sluice.admin.rest;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.exc.ValueInstantiationException;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.sluice.core.config.DuplicateKeys;
import java.io.IOException;

/**
 * Reads request bodies strictly (unknown fields, repeated fields, wrong types and trailing data are
 * errors) and turns every parse error into a 400 naming the field, such as {@code
 * weights.eu-west-1}.
 */
final class JsonBodies {
  private static final byte[] EMPTY_OBJECT = {'{', '}'};
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

  /** The body as {@code type}; an empty body reads as {@code {}}. */
  <T> T read(byte[] body, Class<T> type) {
    byte[] json = body == null || body.length == 0 ? EMPTY_OBJECT : body;
    try {
      T value = mapper.readValue(json, type);
      if (value == null) {
        throw ApiException.badRequest(null, "the body must be a JSON object, was null");
      }
      return value;
    } catch (JsonProcessingException e) {
      String duplicate = DuplicateKeys.pathOf(e);
      if (duplicate != null) {
        throw ApiException.badRequest(
            duplicate,
            "duplicate field '" + DuplicateKeys.keyOf(duplicate) + "': each field may appear once");
      }
      throw ApiException.badRequest(fieldOf(e), messageOf(e));
    } catch (IOException e) {
      throw ApiException.badRequest(null, "unreadable body: " + e.getMessage());
    }
  }

  private static String fieldOf(JsonProcessingException e) {
    if (!(e instanceof JsonMappingException jm) || jm.getPath().isEmpty()) {
      return null;
    }
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : jm.getPath()) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.length() == 0 ? null : sb.toString();
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
