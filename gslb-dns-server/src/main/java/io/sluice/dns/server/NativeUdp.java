package io.sluice.dns.server;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Locale;

/**
 * The native batch loop's system calls (src/main/c/sluice_udp.c): a batch of datagrams read with
 * one recvmmsg and answered with one sendmmsg, into and out of one memory block shared with Java.
 * The library is built with the jar where a C compiler is present; without it, or on another
 * system, {@link #available()} is false and the listeners read through Netty instead.
 */
final class NativeUdp {
  /** Bytes of the per-slot meta block, as laid out in sluice_udp.c. */
  static final int META_BYTES = 48;

  static final int IN_LENGTH = 0;
  static final int OUT_LENGTH = 4;
  static final int OUT_OFFSET = 8;
  static final int FAMILY = 12;
  static final int PORT = 16;
  static final int ADDRESS = 20;

  private static final String UNAVAILABLE = load();

  private NativeUdp() {}

  /** Whether the native loop can run here. */
  static boolean available() {
    return UNAVAILABLE == null;
  }

  /** Why the native loop cannot run here; null when it can. */
  static String unavailableReason() {
    return UNAVAILABLE;
  }

  /** The library's resource name for this machine: by architecture, as `uname -m` names it. */
  static String resource() {
    String arch = System.getProperty("os.arch", "").toLowerCase(Locale.ROOT);
    if (arch.equals("amd64")) {
      arch = "x86_64";
    }
    return "native/libsluice-udp-" + arch + ".so";
  }

  private static String load() {
    if (!System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")) {
      return "not Linux";
    }
    String name = resource();
    try (InputStream in = NativeUdp.class.getResourceAsStream(name)) {
      if (in == null) {
        return "the jar has no " + name + " (built without a C compiler, or for another machine)";
      }
      // System.load needs a file; once mapped it is no longer needed, so it goes at once.
      Path file = Files.createTempFile("sluice-udp-", ".so");
      try {
        Files.copy(in, file, StandardCopyOption.REPLACE_EXISTING);
        System.load(file.toAbsolutePath().toString());
      } finally {
        Files.deleteIfExists(file);
      }
      return null;
    } catch (IOException | UnsatisfiedLinkError | SecurityException e) {
      return "cannot load " + name + ": " + e;
    }
  }

  /**
   * A batch of {@code slots} datagrams of up to {@code inBytes} each, with {@code outBytes} of
   * reply room per slot (packed); 0 when out of memory.
   */
  static native long create(int slots, int inBytes, int outBytes);

  /** The batch's memory: in area, out area, meta area. */
  static native ByteBuffer memory(long batch);

  /**
   * Reads up to a batch from {@code fd}, waiting only while the socket is empty: inside recvmmsg
   * after {@link #waitInKernel}, else in poll for up to {@code timeoutMillis}; the number read, 0
   * (none, or woken by {@link #wake}), or a negative errno.
   */
  static native int receive(long batch, int fd, int timeoutMillis);

  /**
   * Sends the replies of the first {@code count} slots; returns how many were dropped because the
   * kernel's send buffer stayed full (a reply refused for its address is skipped, not counted).
   */
  static native int send(long batch, int fd, int count);

  /**
   * Lets {@link #receive} wait for datagrams inside recvmmsg, each wait at most {@code
   * timeoutMillis}: clears O_NONBLOCK on the socket's open file; 0, or a negative errno.
   */
  static native int waitInKernel(int fd, int timeoutMillis);

  /**
   * With true, sets the don't-fragment bit on the replies sent through {@code fd}
   * (IP_PMTUDISC_PROBE, as the listeners a native loop reads are made; {@link #send} sends a reply
   * too large for the interface once more without it); with false, takes it off again
   * (IP_PMTUDISC_OMIT). 0, or a negative errno.
   */
  static native int dontFragment(int fd, boolean dontFragment);

  /**
   * Sets O_NONBLOCK on the socket's open file again, as any other reader of it expects; {@link
   * #receive} then waits in poll. 0, or a negative errno.
   */
  static native int nonBlocking(int fd);

  /**
   * Makes a {@link #receive} waiting in poll on an empty socket return now, and every later one;
   * one waiting inside recvmmsg returns at the end of its bounded wait.
   */
  static native void wake(long batch);

  /** Frees the batch; no call may use it afterwards. */
  static native void destroy(long batch);
}
