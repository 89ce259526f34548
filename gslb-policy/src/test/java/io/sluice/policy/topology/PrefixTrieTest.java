package io.sluice.policy.topology;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.api.Test;

/** The trie's jump table over the first address byte finds what a walk from the root finds. */
class PrefixTrieTest {
  @Test
  void theJumpAgreesWithTheWalkFromTheRoot() {
    Random random = new Random(5);
    for (int round = 0; round < 60; round++) {
      int bits = round % 2 == 0 ? 32 : 128;
      int regions = 2 + random.nextInt(6);
      PrefixTrieBuilder b = new PrefixTrieBuilder(bits);
      int networks = 1 + random.nextInt(round < 30 ? 8 : 400);
      for (int i = 0; i < networks; i++) {
        byte[] a = new byte[bits / 8];
        random.nextBytes(a);
        // Short prefixes too, so leaves end above the jump's depth as well as below it.
        int prefix = random.nextInt(4) == 0 ? random.nextInt(9) : random.nextInt(bits + 1);
        b.put(a, prefix, random.nextInt(regions));
      }
      PrefixTrie trie = b.build(0, v -> v, regions);
      for (int probe = 0; probe < 2000; probe++) {
        byte[] a = new byte[bits / 8];
        random.nextBytes(a);
        long regionClass = random.nextLong() & ((1L << regions) - 1);
        assertEquals(trie.findFromRoot(a), trie.find(a));
        assertEquals(trie.scopeFromRoot(a, regionClass), trie.scope(a, regionClass));
        assertTrue(trie.scope(a, regionClass) <= (int) (trie.find(a) >>> 32));
      }
    }
  }
}
