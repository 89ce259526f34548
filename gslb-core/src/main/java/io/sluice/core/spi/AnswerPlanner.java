package io.sluice.core.spi;

/**
 * What the DNS module asks for the answer of a GSLB service. Implementations read the current
 * snapshot once per call, never block and never take a lock.
 */
public interface AnswerPlanner {

  /**
   * Decides the answer of {@code service} (its absolute lower-case name) for {@code client} and the
   * asked address family.
   */
  Decision plan(String service, AddressFamily family, ClientInfo client);
}
