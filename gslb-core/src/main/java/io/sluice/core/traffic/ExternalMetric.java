package io.sluice.core.traffic;

import io.sluice.core.config.ExternalGateConfig;

/** Reads the value of an external gate's metric; an unreadable metric fails its gate. */
public interface ExternalMetric {

  /** The current value, or an exception saying why it could not be read. */
  double read(ExternalGateConfig gate) throws Exception;
}
