package io.sluice.admin.rest;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.sluice.admin.testing.AdminFixture;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** {@code docs/openapi.yaml} documents exactly the routes the server answers, with their roles. */
class OpenApiDocumentTest {
  private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch");

  private static JsonNode document() throws Exception {
    Path file = Path.of(System.getProperty("user.dir")).resolve("../docs/openapi.yaml").normalize();
    assertTrue(Files.exists(file), "missing " + file);
    return new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
  }

  @Test
  void everyRouteIsDocumentedAndEveryDocumentedRouteExists() throws Exception {
    JsonNode doc = document();
    assertTrue(doc.get("openapi").asText().startsWith("3."));
    Set<String> documented = new TreeSet<>();
    List<String> problems = new ArrayList<>();
    doc.get("paths")
        .properties()
        .forEach(
            p ->
                p.getValue()
                    .properties()
                    .forEach(
                        op -> {
                          if (!METHODS.contains(op.getKey())) {
                            return;
                          }
                          documented.add(op.getKey().toUpperCase(Locale.ROOT) + " " + p.getKey());
                        }));
    Set<String> served = new TreeSet<>();
    try (AdminFixture f = new AdminFixture()) {
      for (Route r : f.server.routes()) {
        String key = r.method() + " " + r.template();
        served.add(key);
        JsonNode op = doc.get("paths").path(r.template()).path(r.method().toLowerCase(Locale.ROOT));
        if (op.isMissingNode()) {
          continue;
        }
        String role = r.role() == null ? "none" : r.role().label();
        if (!role.equals(op.path("x-sluice-role").asText())) {
          problems.add(key + ": x-sluice-role should be " + role);
        }
        boolean declaredPublic = op.has("security") && op.get("security").isEmpty();
        if (declaredPublic != (r.role() == null)) {
          problems.add(key + ": security should " + (r.role() == null ? "" : "not ") + "be []");
        }
        Matcher m = Pattern.compile("\\{([^}]+)}").matcher(r.template());
        while (m.find()) {
          if (!declaresPathParameter(doc, doc.get("paths").path(r.template()), m.group(1))) {
            problems.add(key + ": path parameter " + m.group(1) + " is not declared");
          }
        }
      }
    }
    assertEquals(served, documented, "routes served vs documented");
    assertEquals(List.of(), problems);
  }

  private static boolean declaresPathParameter(JsonNode doc, JsonNode pathItem, String name) {
    for (JsonNode p : pathItem.path("parameters")) {
      JsonNode resolved = p;
      if (p.has("$ref")) {
        String[] ref = p.get("$ref").asText().substring(2).split("/");
        resolved = doc;
        for (String part : ref) {
          resolved = resolved.path(part);
        }
      }
      if (name.equals(resolved.path("name").asText())
          && "path".equals(resolved.path("in").asText())) {
        return true;
      }
    }
    return false;
  }
}
