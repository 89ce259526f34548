package io.sluice.policy;

/**
 * How a balancing step spreads clients over answer variants for one candidate set. A variant is a
 * fixed list of endpoints; {@link #pick} maps a client's stable hash to a variant without
 * allocating, so each variant's answer can be built once and returned by identity.
 */
public interface Spread {

  /** Number of variants (at least 1). */
  int variants();

  /** The variant for a client with stable hash {@code clientHash}. */
  int pick(long clientHash);

  /**
   * The endpoints of variant {@code v}, each encoded as {@code pool << 16 | index} where {@code
   * index} is the endpoint's position in {@link EndpointTable#weights(int)} of that pool.
   */
  int[] members(int v);

  /**
   * The fraction of clients (uniform stable hashes) that {@link #pick} sends to variant {@code v};
   * the fractions of all variants add up to 1. Read off the query path, for the expected shares.
   */
  default double share(int v) {
    return 1.0 / variants();
  }

  /** Why the spread looks as it does, for explain. */
  default String describe() {
    return "";
  }

  /** A single variant holding {@code members}. */
  static Spread fixed(int[] members, String why) {
    return new Spread() {
      @Override
      public int variants() {
        return 1;
      }

      @Override
      public int pick(long clientHash) {
        return 0;
      }

      @Override
      public int[] members(int v) {
        return members;
      }

      @Override
      public String describe() {
        return why;
      }
    };
  }

  /** Encodes one member. */
  static int member(int pool, int index) {
    return pool << 16 | index;
  }

  /** Uniform double in [0, 1) from a hash. */
  static double unit(long hash) {
    return (hash >>> 11) * 0x1.0p-53;
  }
}
