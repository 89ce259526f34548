package io.sluice.core.spi;

/**
 * Who asked: the EDNS Client Subnet when the query carried one (RFC 7871), else the resolver's
 * source address. {@code address} has host bits beyond {@code sourcePrefix} cleared.
 */
public record ClientInfo(byte[] address, int sourcePrefix, boolean fromEcs) {

  /** Buckets for stable cohorts: a ramp at p% moves the clients in buckets below p × 100. */
  public static final int BUCKETS = 10_000;

  /** A client known only by its resolver's address. */
  public static ClientInfo ofResolver(byte[] address) {
    return new ClientInfo(address, address.length * 8, false);
  }

  /** A client known by its EDNS Client Subnet. */
  public static ClientInfo ofSubnet(byte[] address, int sourcePrefix) {
    return new ClientInfo(mask(address, sourcePrefix), sourcePrefix, true);
  }

  /**
   * A client known by an EDNS Client Subnet whose {@code address} has no bit set beyond {@code
   * sourcePrefix}, as the DNS query parser leaves it (RFC 7871 §6 makes a query with such bits
   * malformed): kept as given, without the copy {@link #ofSubnet} makes. The caller must not change
   * {@code address} afterwards.
   */
  public static ClientInfo ofMaskedSubnet(byte[] address, int sourcePrefix) {
    return new ClientInfo(address, sourcePrefix, true);
  }

  public AddressFamily family() {
    return AddressFamily.of(address);
  }

  /**
   * The client's stable cohort bucket in {@code 0..BUCKETS-1}: a hash of its /24 (IPv4) or /56
   * (IPv6) network, so the same client lands in the same bucket whether a resolver sends its ECS
   * subnet or not, on every node.
   */
  public int bucket() {
    int bits = Math.min(sourcePrefix, address.length == 4 ? 24 : 56);
    long h = 0xcbf29ce484222325L;
    int fullBytes = bits / 8;
    for (int i = 0; i < fullBytes; i++) {
      h = (h ^ (address[i] & 0xff)) * 0x100000001b3L;
    }
    int rest = bits % 8;
    if (rest != 0) {
      h = (h ^ (address[fullBytes] & (0xff << (8 - rest)) & 0xff)) * 0x100000001b3L;
    }
    h = (h ^ bits) * 0x100000001b3L;
    h ^= h >>> 33;
    h *= 0xff51afd7ed558ccdL;
    h ^= h >>> 33;
    return (int) Long.remainderUnsigned(h, BUCKETS);
  }

  /** A copy of {@code address} with bits beyond {@code prefix} cleared. */
  public static byte[] mask(byte[] address, int prefix) {
    byte[] out = address.clone();
    for (int i = 0; i < out.length; i++) {
      int keep = Math.max(0, Math.min(8, prefix - i * 8));
      out[i] = (byte) (out[i] & (0xff << (8 - keep)));
    }
    return out;
  }
}
