package io.sluice.it;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;

/**
 * Which local process owns the other end of a loopback TCP connection, read from Linux's {@code
 * /proc}: the connection's socket inode from {@code /proc/net/tcp}, then the process among the
 * candidates holding a descriptor on it. Lets a real backend answer the probes of one node process
 * differently from another's, although every probe comes from 127.0.0.1.
 */
final class PeerProcess {
  private PeerProcess() {}

  /** Whether {@code /proc} can tell connections apart here (Linux). */
  static boolean supported() {
    return Files.isReadable(Path.of("/proc/net/tcp"));
  }

  /**
   * Whether the client end of the connection from {@code clientPort} to {@code serverPort} belongs
   * to one of {@code pids}.
   */
  static boolean ownedByAnyOf(int clientPort, int serverPort, Set<Long> pids) {
    if (pids.isEmpty()) {
      return false;
    }
    String inode = inode(clientPort, serverPort);
    if (inode == null) {
      return false;
    }
    String target = "socket:[" + inode + "]";
    for (long pid : pids) {
      try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc", pid + "", "fd"))) {
        for (Path fd : fds) {
          try {
            if (Files.readSymbolicLink(fd).toString().equals(target)) {
              return true;
            }
          } catch (IOException closedMeanwhile) {
            // The descriptor went away while listing: not the one.
          }
        }
      } catch (IOException gone) {
        // The process exited.
      }
    }
    return false;
  }

  /** The inode of the socket whose local port is {@code local} and remote port {@code remote}. */
  private static String inode(int local, int remote) {
    for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
      List<String> lines;
      try {
        lines = Files.readAllLines(Path.of(table));
      } catch (IOException e) {
        continue;
      }
      for (String line : lines.subList(Math.min(1, lines.size()), lines.size())) {
        String[] f = line.trim().split("\\s+");
        if (f.length > 9 && port(f[1]) == local && port(f[2]) == remote) {
          return f[9];
        }
      }
    }
    return null;
  }

  private static int port(String hexAddress) {
    return Integer.parseInt(hexAddress.substring(hexAddress.lastIndexOf(':') + 1), 16);
  }
}
