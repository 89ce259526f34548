package io.sluice.dns.response;

import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The token buckets of response rate limiting in one fixed array of longs, so memory is bounded by
 * the table size whatever the number of clients, and a query allocates nothing. Each key (client
 * network, answer kind and name or zone, hashed with a per-process random seed so that no one can
 * aim collisions) may sit in one of two neighbouring slots; a new key takes the slot used longest
 * ago. A slot packs its key's tag, the second it was last charged, its slip counter and its balance
 * into one long, updated with compare-and-set: event loops never lock or wait, and a response whose
 * slot other threads keep changing is decided on the state last read rather than retried without
 * end.
 */
public final class RateLimiter {
  /** {@link #charge} results: within the limit, over it and dropped, over it and slipped. */
  public static final int PASS = 0;

  public static final int DROP = 1;
  public static final int SLIP = 2;

  /** Or-ed into a limited result when this response is the first over the limit in a while. */
  public static final int FIRST = 4;

  private static final int CAS_ATTEMPTS = 4;

  // Layout of a slot: used(1) | tag(15) | second(22) | slip count(4) | balance + BIAS (22).
  private static final long USED = 1L << 63;
  private static final int TAG_SHIFT = 48;
  private static final long TAG_MASK = 0x7fffL;
  private static final int TIME_SHIFT = 26;
  private static final long TIME_MASK = (1L << 22) - 1;
  private static final int SLIP_SHIFT = 22;
  private static final long SLIP_MASK = 0xf;
  private static final long BALANCE_MASK = (1L << 22) - 1;
  private static final long BIAS = 1L << 21;

  private final AtomicLongArray slots;
  private final int mask;
  private final long seed;

  /** A table of {@code size} slots, a power of two. */
  public RateLimiter(int size) {
    if (Integer.bitCount(size) != 1 || size < 2) {
      throw new IllegalArgumentException("table size must be a power of two, was " + size);
    }
    slots = new AtomicLongArray(size);
    mask = size - 1;
    seed = new SecureRandom().nextLong();
  }

  /** The table's size in slots. */
  int size() {
    return slots.length();
  }

  /** Mixes {@code value} into hash {@code h} (the finalizer of MurmurHash3, a good avalanche). */
  public static long mix(long h, long value) {
    long x = h ^ value;
    x ^= x >>> 33;
    x *= 0xff51afd7ed558ccdL;
    x ^= x >>> 33;
    x *= 0xc4ceb9fe1a85ec53L;
    x ^= x >>> 33;
    return x;
  }

  /** The seed a key's hash starts from. */
  public long seed() {
    return seed;
  }

  /**
   * Charges one response to the bucket of {@code key} at {@code second} (any monotonic count of
   * seconds). The bucket earns {@code rate} tokens a second, holds at most {@code rate}, and may
   * owe at most {@code window} seconds' worth. Returns {@link #PASS}, or {@link #DROP} or {@link
   * #SLIP} (every {@code slip}-th limited response; never with slip 0), with {@link #FIRST} when
   * the bucket was not in debt before this response.
   */
  public int charge(long key, long second, int rate, int window, int slip) {
    int i = (int) key & mask;
    long tag = (key >>> TAG_SHIFT) & TAG_MASK;
    long now = second & TIME_MASK;
    int result = PASS;
    for (int attempt = 0; attempt < CAS_ATTEMPTS; attempt++) {
      int slot = i;
      long old = slots.get(i);
      if (!matches(old, tag)) {
        long other = slots.get(i ^ 1);
        if (matches(other, tag) || idle(other, now) > idle(old, now)) {
          slot = i ^ 1;
          old = other;
        }
      }
      long balance;
      long slipCount;
      if (matches(old, tag)) {
        long elapsed = (now - ((old >>> TIME_SHIFT) & TIME_MASK)) & TIME_MASK;
        long before = (old & BALANCE_MASK) - BIAS;
        // Credit earned since the last charge; a long-idle bucket is simply full.
        balance = elapsed > window + 1L ? rate : Math.min(rate, before + elapsed * rate);
        slipCount = (old >>> SLIP_SHIFT) & SLIP_MASK;
      } else {
        balance = rate;
        slipCount = 0;
      }
      boolean wasInDebt = balance < 0;
      balance = Math.max(balance - 1, -(long) rate * window);
      result = PASS;
      if (balance < 0) {
        if (slip > 0) {
          slipCount = slipCount + 1 >= slip ? 0 : slipCount + 1;
        }
        result = slip > 0 && slipCount == 0 ? SLIP : DROP;
        if (!wasInDebt) {
          result |= FIRST;
        }
      }
      long next =
          USED
              | tag << TAG_SHIFT
              | now << TIME_SHIFT
              | slipCount << SLIP_SHIFT
              | (balance + BIAS) & BALANCE_MASK;
      if (slots.compareAndSet(slot, old, next)) {
        return result;
      }
    }
    // Other threads keep winning this slot (a flood over several event loops): decide on the
    // state last read, uncharged, rather than spin; a bucket in debt stays limited.
    return result;
  }

  private static boolean matches(long slot, long tag) {
    return (slot & USED) != 0 && ((slot >>> TAG_SHIFT) & TAG_MASK) == tag;
  }

  /** Seconds since the slot was charged; an empty slot counts as idle forever. */
  private static long idle(long slot, long now) {
    return (slot & USED) == 0
        ? Long.MAX_VALUE
        : (now - ((slot >>> TIME_SHIFT) & TIME_MASK)) & TIME_MASK;
  }
}
