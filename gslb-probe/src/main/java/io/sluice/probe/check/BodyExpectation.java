package io.sluice.probe.check;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.sluice.core.config.CheckConfig;
import java.io.IOException;
import java.util.regex.Pattern;

/**
 * What a full-link response body must contain: a substring, a regular expression match and/or a
 * JSON field value. This is what catches a readiness URL that answers 200 while its database is
 * gone.
 */
record BodyExpectation(String substring, Pattern regex, String jsonPointer, String jsonValue) {
  private static final ObjectMapper JSON = new ObjectMapper();

  static BodyExpectation of(CheckConfig c) {
    return new BodyExpectation(
        c.expectBody(),
        c.expectBodyRegex() == null ? null : Pattern.compile(c.expectBodyRegex()),
        c.expectJsonPointer(),
        c.expectJsonValue());
  }

  boolean isEmpty() {
    return substring == null && regex == null && jsonPointer == null;
  }

  /** Why {@code body} does not meet the expectation, or null when it does. */
  String problem(String body) {
    if (substring != null && !body.contains(substring)) {
      return "body does not contain '" + substring + "': " + excerpt(body);
    }
    if (regex != null && !regex.matcher(body).find()) {
      return "body does not match /" + regex.pattern() + "/: " + excerpt(body);
    }
    if (jsonPointer != null) {
      JsonNode node;
      try {
        node = JSON.readTree(body);
      } catch (IOException e) {
        return "body is not JSON: " + excerpt(body);
      }
      JsonNode field = node == null ? null : node.at(jsonPointer);
      if (field == null || field.isMissingNode()) {
        return "JSON field " + jsonPointer + " is missing";
      }
      String actual = field.isValueNode() ? field.asText() : field.toString();
      if (!jsonValue.equals(actual)) {
        return "JSON field " + jsonPointer + " is '" + actual + "', expected '" + jsonValue + "'";
      }
    }
    return null;
  }

  private static String excerpt(String body) {
    String oneLine = body.replaceAll("\\s+", " ").strip();
    return oneLine.length() <= 80 ? "'" + oneLine + "'" : "'" + oneLine.substring(0, 80) + "…'";
  }
}
