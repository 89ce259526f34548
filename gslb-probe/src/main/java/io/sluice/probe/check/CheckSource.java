package io.sluice.probe.check;

import io.sluice.core.config.CheckConfig;
import java.time.Duration;

/** Builds the checks the engine schedules; {@link CheckFactory} is the real one. */
public interface CheckSource {

  /** A check of {@code c} against {@code endpointAddress} with {@code layerTimeout} by default. */
  Check create(CheckConfig c, String endpointAddress, Duration layerTimeout);

  /** A check of one canary target as written in {@code probes.canaries}. */
  Check canary(String spec);
}
