package io.sluice.admin.rest;

import com.sun.management.UnixOperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks at start that the process's file-descriptor limit leaves room for every connection the
 * listeners may keep, so that a flood on one listener can never starve another of descriptors.
 */
final class FileDescriptors {
  private static final Logger log = LoggerFactory.getLogger(FileDescriptors.class);

  /** Descriptors kept for state files, probes, sockets of the listeners themselves and the JVM. */
  static final long HEADROOM = 1024;

  private FileDescriptors() {}

  /** Logs the limit, and warns when the connection caps could exhaust it. */
  static void check(int adminConnections, int tcpDnsConnections) {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    if (!(os instanceof UnixOperatingSystemMXBean unix)) {
      return;
    }
    long limit = unix.getMaxFileDescriptorCount();
    long needed = (long) adminConnections + tcpDnsConnections + HEADROOM;
    if (needed > limit) {
      log.warn(
          "the file-descriptor limit is {} but admin.connections.max ({}) + dns.maxTcpConnections"
              + " ({}) + {} spare need {}: raise the limit (ulimit -n, systemd LimitNOFILE) or lower"
              + " the caps",
          limit,
          adminConnections,
          tcpDnsConnections,
          HEADROOM,
          needed);
    } else {
      log.info(
          "file descriptors: limit {}, in use {}; connection caps need at most {}",
          limit,
          unix.getOpenFileDescriptorCount(),
          needed);
    }
  }
}
