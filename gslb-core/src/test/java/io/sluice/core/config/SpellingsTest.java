package io.sluice.core.config;

import static org.junit.jupiter.api.Assertions.assertEquals;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.sluice.core.dnssec.RolloverStep;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every enum spelt by {@link Spellings} prints what the configuration file reads. */
class SpellingsTest {
  @Test
  void eachConstantPrintsItsJsonName() throws Exception {
    List<Class<? extends Enum<?>>> spelt =
        List.of(
            ShiftMode.class,
            ConfirmScope.class,
            ConfirmTimeout.class,
            CheckType.class,
            LastResortAction.class,
            UdpLoop.class,
            DenialMode.class,
            RolloverStep.class);
    for (Class<? extends Enum<?>> type : spelt) {
      for (Enum<?> constant : type.getEnumConstants()) {
        JsonProperty json = type.getField(constant.name()).getAnnotation(JsonProperty.class);
        assertEquals(json.value(), constant.toString(), type.getSimpleName() + "." + constant);
      }
    }
    assertEquals("auto-with-confirm", Spellings.of(ShiftMode.AUTO_WITH_CONFIRM));
  }
}
