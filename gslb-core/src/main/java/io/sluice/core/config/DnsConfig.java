package io.sluice.core.config;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;

/** Where and how the DNS listener runs. */
public record DnsConfig(
    List<String> listen,
    Integer port,
    Integer threads,
    Integer udpPayloadSize,
    Integer maxTcpConnections,
    Integer maxTcpConnectionsPerSource,
    Duration tcpIdleTimeout,
    Duration tcpMessageTimeout,
    Integer socketBufferBytes,
    UdpLoop udpLoop,
    Integer warmupQueries,
    ChaosConfig chaos,
    String nsid,
    RrlConfig rrl,
    CookieConfig cookies,
    HttpsConfig https) {

  public DnsConfig {
    listen = listen == null ? List.of("127.0.0.1", "::1") : List.copyOf(listen);
    port = port == null ? 5353 : port;
    threads = threads == null ? 0 : threads;
    udpPayloadSize = udpPayloadSize == null ? 1232 : udpPayloadSize;
    maxTcpConnections = maxTcpConnections == null ? 1024 : maxTcpConnections;
    maxTcpConnectionsPerSource =
        maxTcpConnectionsPerSource == null ? 64 : maxTcpConnectionsPerSource;
    tcpIdleTimeout = tcpIdleTimeout == null ? Duration.ofSeconds(10) : tcpIdleTimeout;
    tcpMessageTimeout = tcpMessageTimeout == null ? Duration.ofSeconds(3) : tcpMessageTimeout;
    socketBufferBytes = socketBufferBytes == null ? 4 * 1024 * 1024 : socketBufferBytes;
    udpLoop = udpLoop == null ? UdpLoop.NATIVE : udpLoop;
    warmupQueries = warmupQueries == null ? DEFAULT_WARMUP_QUERIES : warmupQueries;
    chaos = chaos == null ? new ChaosConfig(null, null) : chaos;
    rrl = rrl == null ? RrlConfig.defaults() : rrl;
    cookies = cookies == null ? CookieConfig.defaults() : cookies;
    https = https == null ? HttpsConfig.defaults() : https;
  }

  /**
   * Synthetic queries the query path answers at start, before any listener reads, so the JIT has
   * compiled it for every kind of question (ECS, EDNS, DNSSEC, negative answers) before real ones
   * arrive; see docs/dns.md.
   */
  public static final int DEFAULT_WARMUP_QUERIES = 30_000;

  public static DnsConfig defaults() {
    return new DnsConfig(
        null, null, null, null, null, null, null, null, null, null, null, null, null, null, null,
        null);
  }

  /** The same settings on another port (a command-line override). */
  public DnsConfig withPort(int newPort) {
    return with(listen, newPort, threads, nsid);
  }

  /** The same settings with another NSID (a node-local command-line override). */
  public DnsConfig withNsid(String newNsid) {
    return with(listen, port, threads, newNsid);
  }

  /** The same settings on other addresses (a command-line override). */
  public DnsConfig withListen(List<String> addresses) {
    return with(addresses, port, threads, nsid);
  }

  /** The same settings with another number of worker threads. */
  public DnsConfig withThreads(int n) {
    return with(listen, port, n, nsid);
  }

  /** A copy with the settings the command line can override; every other setting kept. */
  private DnsConfig with(List<String> newListen, int newPort, int newThreads, String newNsid) {
    return new DnsConfig(
        newListen,
        newPort,
        newThreads,
        udpPayloadSize,
        maxTcpConnections,
        maxTcpConnectionsPerSource,
        tcpIdleTimeout,
        tcpMessageTimeout,
        socketBufferBytes,
        udpLoop,
        warmupQueries,
        chaos,
        newNsid,
        rrl,
        cookies,
        https);
  }

  void validate(String path, Problems p) {
    Addresses.validateListen(path, listen, p);
    p.range(Problems.child(path, "port"), port, 0, 65535);
    p.range(Problems.child(path, "threads"), threads, 0, 256);
    p.range(Problems.child(path, "udpPayloadSize"), udpPayloadSize, 512, 65535);
    p.range(Problems.child(path, "warmupQueries"), warmupQueries, 0, 10_000_000);
    p.range(Problems.child(path, "maxTcpConnections"), maxTcpConnections, 1, 1_000_000);
    p.range(
        Problems.child(path, "maxTcpConnectionsPerSource"),
        maxTcpConnectionsPerSource,
        1,
        1_000_000);
    if (tcpIdleTimeout.isNegative() || tcpIdleTimeout.isZero()) {
      p.add(Problems.child(path, "tcpIdleTimeout"), "must be positive");
    }
    if (tcpMessageTimeout.isNegative() || tcpMessageTimeout.isZero()) {
      p.add(Problems.child(path, "tcpMessageTimeout"), "must be positive");
    }
    p.range(Problems.child(path, "socketBufferBytes"), socketBufferBytes, 0, 256 * 1024 * 1024);
    rrl.validate(Problems.child(path, "rrl"), p);
    cookies.validate(Problems.child(path, "cookies"), p);
    https.validate(Problems.child(path, "https"), p);
    if (nsid != null) {
      String problem = nsidProblem(nsid);
      if (problem != null) {
        p.add(Problems.child(path, "nsid"), problem);
      }
    }
  }

  /** The longest NSID accepted: enough for any node name, small beside every response. */
  static final int MAX_NSID_BYTES = 128;

  /**
   * The NSID (RFC 5001) this node sends to a query that asks for it, or null when none is
   * configured. {@code nsid} is UTF-8 text, or hex digits after {@code 0x} (as Knot spells it).
   */
  public byte[] nsidBytes() {
    if (nsid == null || nsidProblem(nsid) != null) {
      return null;
    }
    if (nsid.startsWith("0x")) {
      return HexFormat.of().parseHex(nsid.substring(2));
    }
    return nsid.getBytes(StandardCharsets.UTF_8);
  }

  private static String nsidProblem(String nsid) {
    int length;
    if (nsid.startsWith("0x")) {
      String hex = nsid.substring(2);
      if (hex.isEmpty() || hex.length() % 2 != 0 || !hex.matches("[0-9a-fA-F]+")) {
        return "hex form must be 0x followed by an even number of hex digits, was '" + nsid + "'";
      }
      length = hex.length() / 2;
    } else {
      length = nsid.getBytes(StandardCharsets.UTF_8).length;
      if (length == 0) {
        return "must not be empty (leave it out to send no NSID)";
      }
    }
    if (length > MAX_NSID_BYTES) {
      return "must be at most " + MAX_NSID_BYTES + " bytes, was " + length;
    }
    return null;
  }
}
