package io.sluice.core.spi;

import java.io.IOException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.function.Consumer;

/**
 * Where the nodes of a cluster share the secrets of their DNS server cookies (RFC 7873, RFC 9018):
 * a current secret, which makes cookies, and the previous one, whose cookies stay valid during a
 * rotation. A cookie made by one node is then valid on every node. The cluster module implements
 * it; a single node keeps its secret in a file and has none.
 */
public interface CookieSecretExchange extends AutoCloseable {

  /** The shared secrets: 16 bytes each; {@code previous} is null when there is none. */
  record Secrets(byte[] current, byte[] previous) {
    /** The length of a secret: 128 bits. */
    public static final int LENGTH = 16;

    public Secrets {
      if (current == null
          || current.length != LENGTH
          || (previous != null && previous.length != LENGTH)) {
        throw new IllegalArgumentException("a cookie secret is " + LENGTH + " bytes");
      }
      current = current.clone();
      previous = previous == null ? null : previous.clone();
    }

    /** The secrets after a rotation to {@code fresh}: the current one becomes the previous. */
    public Secrets rotatedTo(byte[] fresh) {
      return new Secrets(fresh, current);
    }

    /**
     * A short, non-secret name of the current secret (the first 4 bytes of its SHA-256, in hex), so
     * operators can tell whether two nodes hold the same one.
     */
    public String fingerprint() {
      try {
        byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(current);
        return HexFormat.of().formatHex(h, 0, 4);
      } catch (java.security.NoSuchAlgorithmException e) {
        throw new IllegalStateException("SHA-256 is always available", e);
      }
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof Secrets s
          && Arrays.equals(current, s.current)
          && Arrays.equals(previous, s.previous);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(current) * 31 + Arrays.hashCode(previous);
    }

    @Override
    public String toString() {
      return "Secrets[" + fingerprint() + (previous == null ? "" : ", with previous") + "]";
    }
  }

  /**
   * Starts sharing, off the caller's thread: the first node of a cluster publishes {@code seed}
   * (the others keep the cluster's), then {@code listener} hears the cluster's secrets and every
   * later change. While the cluster's store is unreachable the listener hears nothing, so the node
   * keeps the secrets it knew last; it hears them again once the store answers.
   */
  void start(Secrets seed, Consumer<Secrets> listener);

  /**
   * Makes {@code fresh} the cluster's current secret and the current one its previous, for every
   * node; returns the new secrets once the store has them. The listener of every node, this one
   * included, hears of them as of any other change.
   *
   * @throws IOException when the cluster's store cannot be reached
   */
  Secrets rotate(byte[] fresh) throws IOException;

  @Override
  void close();
}
