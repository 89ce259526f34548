package io.sluice.it;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/** Small readers for the admin API's JSON. */
final class JsonText {
  private JsonText() {}

  /** The text of each element of a JSON array (empty when it is not an array). */
  static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(n -> out.add(n.asText()));
    return out;
  }
}
