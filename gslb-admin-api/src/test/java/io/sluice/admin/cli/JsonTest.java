package io.sluice.admin.cli;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.DayOfWeek;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** ctl's JSON reads and writes what an {@link ObjectMapper} would, node type for node type. */
class JsonTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  @Test
  void readsTheSameTreeAsAnObjectMapper() throws IOException {
    String text =
        "{\"message\":\"rolled back \\u00e9\\n\",\"snapshotVersion\":7,\"big\":9007199254740993,"
            + "\"huge\":123456789012345678901234567890,\"share\":0.25,\"exp\":1e3,\"ok\":true,"
            + "\"no\":false,\"none\":null,\"list\":[1,\"a\",[],{}],\"nested\":{\"k\":[{\"x\":-1}]},"
            + "\"dup\":1,\"dup\":2}";
    JsonNode ours = Json.read(text);
    JsonNode theirs = MAPPER.readTree(text);
    assertEquals(theirs, ours);
    assertEquals(theirs.get("big").getClass(), ours.get("big").getClass());
    assertEquals(theirs.get("huge").getClass(), ours.get("huge").getClass());
    assertEquals(theirs.get("share").getClass(), ours.get("share").getClass());
    assertEquals(MAPPER.readTree("[]"), Json.read(" [ ] "));
    assertEquals(MAPPER.readTree("\"text\""), Json.read("\"text\""));
  }

  @Test
  void refusesWhatIsNotOneJsonValue() {
    for (String bad : List.of("", "{", "{\"a\":}", "[1,2", "{} {}", "<html>")) {
      assertThrows(IOException.class, () -> Json.read(bad), bad);
    }
  }

  @Test
  void writesTheSameBytesAsAnObjectMapper() throws IOException {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("reason", "why \"not\" \u00e9");
    body.put("requestId", null);
    body.put("percent", 12.5);
    body.put("ratio", 0.1f);
    body.put("seconds", 600L);
    body.put("steps", List.of(10.0, 50.0, 100.0));
    body.put("load", Map.of("p1", 0.5));
    body.put("yes", true);
    body.put("count", 3);
    body.put("big", new BigInteger("123456789012345678901234567890"));
    body.put("exact", new BigDecimal("1.10"));
    assertArrayEquals(MAPPER.writeValueAsBytes(body), Json.write(body));
    // A value it does not write itself goes through an ObjectMapper.
    body.put("day", DayOfWeek.MONDAY);
    assertArrayEquals(MAPPER.writeValueAsBytes(body), Json.write(body));
  }
}
