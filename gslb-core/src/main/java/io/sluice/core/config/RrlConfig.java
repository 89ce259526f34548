package io.sluice.core.config;

import java.time.Duration;

/**
 * Response rate limiting (RRL) of UDP answers, as Knot and BIND do it: per client network (an IPv4
 * /24, an IPv6 /56) and answer kind, each response spends a token of a bucket credited {@code
 * perSecond} tokens a second; a bucket that ran dry may owe up to {@code window} seconds of credit.
 * A limited response is dropped, except every {@code slip}-th, which goes out truncated so a real
 * client retries over TCP. On when the section is written (unless {@code enabled: false}), off when
 * it is left out; with {@code logOnly} it only counts and logs.
 */
public record RrlConfig(
    Boolean enabled,
    Boolean logOnly,
    Integer responsesPerSecond,
    Integer nodataPerSecond,
    Integer nxdomainsPerSecond,
    Integer errorsPerSecond,
    Duration window,
    Integer slip,
    Integer ipv4PrefixLength,
    Integer ipv6PrefixLength,
    Integer tableSize) {

  /** The largest rate: with the longest window a bucket's debt still fits its 22 bits. */
  static final int MAX_RATE = 10_000;

  static final Duration MAX_WINDOW = Duration.ofSeconds(60);
  static final int MAX_SLIP = 10;
  static final int MIN_TABLE = 1024;
  static final int MAX_TABLE = 1 << 24;

  public RrlConfig {
    // Writing the section turns it on, as in BIND; leaving it out (defaults()) keeps it off.
    enabled = enabled == null ? Boolean.TRUE : enabled;
    logOnly = logOnly == null ? Boolean.FALSE : logOnly;
    // A caching resolver asks for one name and type at most once per TTL; even a farm of a
    // hundred resolvers in one /24 refreshing a 1-second TTL stays below these.
    responsesPerSecond = responsesPerSecond == null ? 200 : responsesPerSecond;
    nodataPerSecond = nodataPerSecond == null ? 100 : nodataPerSecond;
    nxdomainsPerSecond = nxdomainsPerSecond == null ? 100 : nxdomainsPerSecond;
    errorsPerSecond = errorsPerSecond == null ? 100 : errorsPerSecond;
    window = window == null ? Duration.ofSeconds(15) : window;
    slip = slip == null ? 2 : slip;
    ipv4PrefixLength = ipv4PrefixLength == null ? 24 : ipv4PrefixLength;
    ipv6PrefixLength = ipv6PrefixLength == null ? 56 : ipv6PrefixLength;
    tableSize = tableSize == null ? 262_144 : tableSize;
  }

  /** Rate limiting off (the default when {@code dns.rrl} is absent). */
  public static RrlConfig defaults() {
    return new RrlConfig(false, null, null, null, null, null, null, null, null, null, null);
  }

  void validate(String path, Problems p) {
    p.range(Problems.child(path, "responsesPerSecond"), responsesPerSecond, 1, MAX_RATE);
    p.range(Problems.child(path, "nodataPerSecond"), nodataPerSecond, 1, MAX_RATE);
    p.range(Problems.child(path, "nxdomainsPerSecond"), nxdomainsPerSecond, 1, MAX_RATE);
    p.range(Problems.child(path, "errorsPerSecond"), errorsPerSecond, 1, MAX_RATE);
    if (window.compareTo(Duration.ofSeconds(1)) < 0
        || window.compareTo(MAX_WINDOW) > 0
        || window.getNano() != 0) {
      p.add(
          Problems.child(path, "window"),
          "must be whole seconds from 1s to 60s, was " + DurationParser.format(window));
    }
    p.range(Problems.child(path, "slip"), slip, 0, MAX_SLIP);
    p.range(Problems.child(path, "ipv4PrefixLength"), ipv4PrefixLength, 8, 32);
    p.range(Problems.child(path, "ipv6PrefixLength"), ipv6PrefixLength, 16, 128);
    p.range(Problems.child(path, "tableSize"), tableSize, MIN_TABLE, MAX_TABLE);
    if (Integer.bitCount(tableSize) != 1) {
      p.add(Problems.child(path, "tableSize"), "must be a power of two, was " + tableSize);
    }
  }
}
