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

  /**
   * The TTL answers of {@code service} carry now (short while a shift runs), or -1 when unknown.
   * The DNS module caps the negative TTL of the service name's NODATA answers to it, so a resolver
   * never remembers "no such type" for longer than it remembers the addresses.
   */
  default long servedTtl(String service) {
    return -1;
  }
}
