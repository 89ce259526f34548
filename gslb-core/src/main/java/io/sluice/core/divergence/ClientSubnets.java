package io.sluice.core.divergence;

import io.sluice.core.config.Cidr;
import io.sluice.core.config.NetworkMapEntry;
import io.sluice.core.config.SluiceConfig;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The client subnets a divergence check asks as: a deterministic spread, so that every run and
 * every caller with the same inputs asks the same subnets. First one subnet inside each region's
 * networks (regions in name order), so that every region is covered when {@code n} allows; then, in
 * turn, another subnet inside a region's networks, an IPv4 /24 and an IPv6 /56, the global ones
 * spread evenly over the address space by bit reversal (IPv4 without 0/8, 127/8 and 224.0.0.0 and
 * above; IPv6 inside 2000::/3).
 */
public final class ClientSubnets {
  static final int V4_PREFIX = 24;
  static final int V6_PREFIX = 56;

  private ClientSubnets() {}

  /**
   * {@code n} distinct subnets (CIDR text); {@code regionNetworks} maps each region to networks in
   * it (the network map, GeoIP samples), possibly none.
   */
  public static List<String> spread(int n, Map<String, List<Cidr>> regionNetworks) {
    if (n < 1) {
      throw new IllegalArgumentException("the number of subnets must be at least 1, was " + n);
    }
    List<List<Cidr>> regions = new ArrayList<>();
    new TreeMap<>(regionNetworks)
        .values()
        .forEach(
            nets -> {
              if (!nets.isEmpty()) {
                regions.add(List.copyOf(nets));
              }
            });
    LinkedHashSet<String> out = new LinkedHashSet<>();
    // Per region: how many subnets were taken, and which of its networks is next.
    int[] taken = new int[regions.size()];
    for (int r = 0; r < regions.size() && out.size() < n; r++) {
      out.add(inside(regions.get(r), taken[r]++));
    }
    long v4 = 0;
    long v6 = 0;
    int region = 0;
    int turn = 0;
    // Seeded subnets run out when the regions' networks are small; the global ones never repeat.
    int seededMisses = 0;
    while (out.size() < n) {
      int slot = turn++ % (regions.isEmpty() ? 2 : 3);
      if (slot == 2) {
        if (seededMisses > regions.size()) {
          continue;
        }
        int r = region++ % regions.size();
        String s = inside(regions.get(r), taken[r]++);
        seededMisses = s != null && out.add(s) ? 0 : seededMisses + 1;
      } else if (slot == 0) {
        String s;
        do {
          s = globalV4(v4++);
        } while (s == null);
        out.add(s);
      } else {
        out.add(globalV6(v6++));
      }
    }
    return new ArrayList<>(out);
  }

  /**
   * The regions a check should cover: the network map's networks by region, then {@code
   * geoIpSamples} (networks only the GeoIP database maps to a region).
   */
  public static Map<String, List<Cidr>> regions(
      SluiceConfig config, Map<String, List<Cidr>> geoIpSamples) {
    Map<String, List<Cidr>> out = new TreeMap<>();
    for (NetworkMapEntry e : config.topology().networks()) {
      out.computeIfAbsent(e.region(), r -> new ArrayList<>()).add(Cidr.parse(e.cidr()));
    }
    geoIpSamples.forEach((r, nets) -> out.computeIfAbsent(r, x -> new ArrayList<>()).addAll(nets));
    return out;
  }

  /** The {@code k}-th subnet inside a region: its networks in turn, spread inside each. */
  private static String inside(List<Cidr> nets, int k) {
    Cidr net = nets.get(k % nets.size());
    int index = k / nets.size();
    int width = net.address().length * 8;
    int sub = Math.max(net.prefix(), width == 32 ? V4_PREFIX : V6_PREFIX);
    int bits = Math.min(sub - net.prefix(), 30);
    if (bits == 0 && index > 0 || bits > 0 && index >= 1L << bits) {
      return null;
    }
    byte[] a = net.address().clone();
    setBits(a, net.prefix(), bits, reverse(index, bits));
    return format(a, sub);
  }

  private static String globalV4(long k) {
    long net = reverse(k, V4_PREFIX);
    int first = (int) (net >>> 16);
    if (first == 0 || first == 127 || first >= 224) {
      return null;
    }
    byte[] a = new byte[4];
    setBits(a, 0, V4_PREFIX, net);
    return format(a, V4_PREFIX);
  }

  private static String globalV6(long k) {
    byte[] a = new byte[16];
    setBits(a, 0, 3, 1);
    setBits(a, 3, V6_PREFIX - 3, reverse(k, V6_PREFIX - 3));
    return format(a, V6_PREFIX);
  }

  /** The low {@code bits} bits of {@code v} in reverse order. */
  static long reverse(long v, int bits) {
    return bits == 0 ? 0 : Long.reverse(v) >>> (64 - bits);
  }

  /** Writes the low {@code count} bits of {@code v} into {@code a} from bit {@code from} on. */
  private static void setBits(byte[] a, int from, int count, long v) {
    for (int i = 0; i < count; i++) {
      int bit = from + i;
      if ((v >>> (count - 1 - i) & 1) != 0) {
        a[bit / 8] |= (byte) (0x80 >>> (bit % 8));
      } else {
        a[bit / 8] &= (byte) ~(0x80 >>> (bit % 8));
      }
    }
  }

  /** CIDR text, IPv6 in its short form (longest run of zero groups as {@code ::}). */
  public static String format(byte[] a, int prefix) {
    if (a.length == 4) {
      return (a[0] & 0xff)
          + "."
          + (a[1] & 0xff)
          + "."
          + (a[2] & 0xff)
          + "."
          + (a[3] & 0xff)
          + "/"
          + prefix;
    }
    int[] g = new int[8];
    for (int i = 0; i < 8; i++) {
      g[i] = (a[2 * i] & 0xff) << 8 | (a[2 * i + 1] & 0xff);
    }
    int bestStart = -1;
    int bestLen = 1;
    for (int i = 0; i < 8; ) {
      int j = i;
      while (j < 8 && g[j] == 0) {
        j++;
      }
      if (j - i > bestLen) {
        bestStart = i;
        bestLen = j - i;
      }
      i = j == i ? i + 1 : j;
    }
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < 8; i++) {
      if (i == bestStart) {
        b.append("::");
        i += bestLen - 1;
        continue;
      }
      if (b.length() > 0 && b.charAt(b.length() - 1) != ':') {
        b.append(':');
      }
      b.append(Integer.toHexString(g[i]));
    }
    return b + "/" + prefix;
  }
}
