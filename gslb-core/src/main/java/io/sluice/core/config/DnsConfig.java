package io.sluice.core.config;

import java.time.Duration;
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
    ChaosConfig chaos) {

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
    chaos = chaos == null ? new ChaosConfig(null, null) : chaos;
  }

  public static DnsConfig defaults() {
    return new DnsConfig(null, null, null, null, null, null, null, null, null, null);
  }

  /** The same settings on another port (a command-line override). */
  public DnsConfig withPort(int newPort) {
    return new DnsConfig(
        listen,
        newPort,
        threads,
        udpPayloadSize,
        maxTcpConnections,
        maxTcpConnectionsPerSource,
        tcpIdleTimeout,
        tcpMessageTimeout,
        socketBufferBytes,
        chaos);
  }

  /** The same settings on other addresses (a command-line override). */
  public DnsConfig withListen(List<String> addresses) {
    return new DnsConfig(
        addresses,
        port,
        threads,
        udpPayloadSize,
        maxTcpConnections,
        maxTcpConnectionsPerSource,
        tcpIdleTimeout,
        tcpMessageTimeout,
        socketBufferBytes,
        chaos);
  }

  /** The same settings with another number of worker threads. */
  public DnsConfig withThreads(int n) {
    return new DnsConfig(
        listen,
        port,
        n,
        udpPayloadSize,
        maxTcpConnections,
        maxTcpConnectionsPerSource,
        tcpIdleTimeout,
        tcpMessageTimeout,
        socketBufferBytes,
        chaos);
  }

  void validate(String path, Problems p) {
    if (listen.isEmpty()) {
      p.add(Problems.child(path, "listen"), "at least one address is required");
    }
    for (int i = 0; i < listen.size(); i++) {
      if (!Addresses.isLiteral(listen.get(i))) {
        p.add(
            Problems.index(Problems.child(path, "listen"), i),
            "must be an IPv4 or IPv6 address, was '" + listen.get(i) + "'");
      }
    }
    p.range(Problems.child(path, "port"), port, 0, 65535);
    p.range(Problems.child(path, "threads"), threads, 0, 256);
    p.range(Problems.child(path, "udpPayloadSize"), udpPayloadSize, 512, 65535);
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
  }
}
