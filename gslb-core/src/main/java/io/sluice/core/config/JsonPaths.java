package io.sluice.core.config;

import com.fasterxml.jackson.databind.JsonMappingException;
import java.util.List;

/**
 * Renders a binding error's location as the path operators read, such as {@code
 * zones[0].records[3].ttl}: one spelling for configuration problems and API body errors alike.
 */
public final class JsonPaths {
  private JsonPaths() {}

  /** The path of {@code refs}: field names joined by dots, list indices in brackets. */
  public static String of(List<JsonMappingException.Reference> refs) {
    StringBuilder sb = new StringBuilder();
    for (JsonMappingException.Reference r : refs) {
      if (r.getFieldName() != null) {
        if (sb.length() > 0) {
          sb.append('.');
        }
        sb.append(r.getFieldName());
      } else if (r.getIndex() >= 0) {
        sb.append('[').append(r.getIndex()).append(']');
      }
    }
    return sb.toString();
  }
}
