package io.sluice.core.spi;

import io.sluice.core.health.ProbeEvidence;
import java.util.Map;

/**
 * The probe engine as operators see it, for the admin API's probe status: read from what the engine
 * last published, never blocks.
 */
public interface ProbeView {
  /**
   * The engine's status, a record the API writes as JSON as it is: this vantage, where the verdicts
   * came from at start, the initial round, load and schedule lag, unchecked pools, the vantages
   * heard from with their freshness and probe path, held endpoints, the opinion exchange.
   */
  Record status();

  /** Per checked endpoint key, the vantages behind its verdict and when its last result came. */
  Map<String, ProbeEvidence> evidence();
}
