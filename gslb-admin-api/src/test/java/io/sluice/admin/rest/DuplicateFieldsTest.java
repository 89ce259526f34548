package io.sluice.admin.rest;

import static io.sluice.admin.testing.AdminFixture.OPERATOR;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.sluice.admin.testing.AdminFixture;
import org.junit.jupiter.api.Test;

/** A field written twice in a request body is a 400 naming it, never "the last one wins". */
class DuplicateFieldsTest {

  @Test
  void aRepeatedFieldIsRefusedWithItsPath() throws Exception {
    try (AdminFixture f = new AdminFixture()) {
      var weights =
          f.send(
              "PUT",
              "/api/v1/services/app.example.com/weights",
              OPERATOR,
              "{\"weights\":{\"eu-west-1\":100,\"us-east-1\":0,\"eu-west-1\":0}}");
      assertEquals(400, weights.statusCode(), weights.body());
      assertEquals("weights.eu-west-1", f.json(weights).get("field").asText(), weights.body());
      assertTrue(
          f.json(weights).get("message").asText().contains("duplicate field 'eu-west-1'"),
          weights.body());

      var reason =
          f.send("POST", "/api/v1/freeze", OPERATOR, "{\"reason\":\"a\",\"reason\":\"b\"}");
      assertEquals(400, reason.statusCode(), reason.body());
      assertEquals("reason", f.json(reason).get("field").asText(), reason.body());
      assertTrue(f.control.calls().isEmpty(), "nothing reached the control plane");
    }
  }
}
