package io.sluice.core.spi;

import java.io.IOException;

/** Rotates the DNS cookie secret of a whole cluster, for the admin API's rotate command. */
@FunctionalInterface
public interface CookieRotation {
  /**
   * Makes a fresh secret current on every node, the current one staying valid as the previous;
   * returns the new secrets once the cluster has them.
   *
   * @throws IOException when the cluster's store cannot be reached (nothing changed)
   */
  CookieSecretExchange.Secrets rotate() throws IOException;
}
