package io.sluice.core.testing;

import java.io.BufferedReader;
import java.io.IOException;
import java.util.List;
import java.util.Random;

/**
 * The protocol of a crash test's child JVM (stderr merged into stdout): a {@code restored ...} line
 * once it has opened its state, then {@code ack N} after each acknowledged command; everything else
 * is its log.
 */
public final class AckingChild {
  private AckingChild() {}

  /**
   * Starts {@code main} in a small child JVM on this test's class path, its stderr merged into its
   * stdout.
   */
  public static Process start(Class<?> main, String... args) throws IOException {
    List<String> cmd = ChildJvm.command(96, List.of(), main, args);
    return new ProcessBuilder(cmd).redirectErrorStream(true).start();
  }

  /** The next protocol line, appending the log lines before it to {@code log}; null at the end. */
  public static String protocolLine(BufferedReader in, StringBuilder log) throws IOException {
    String line;
    while ((line = in.readLine()) != null) {
      if (line.startsWith("restored ") || line.startsWith("ack ")) {
        return line;
      }
      log.append(line).append('\n');
    }
    return null;
  }

  /**
   * Reads {@code acks} acknowledgements, sometimes waits up to {@code maxPauseMillis} more (to kill
   * mid-command), kills {@code p} with SIGKILL and reads the acknowledgements printed before the
   * kill. Returns the last acknowledged number ({@code acked} when none came).
   */
  public static int killAfter(
      Process p,
      BufferedReader in,
      int acks,
      Random random,
      int maxPauseMillis,
      int acked,
      StringBuilder log)
      throws IOException, InterruptedException {
    String line;
    while (acks-- > 0 && (line = protocolLine(in, log)) != null) {
      acked = Integer.parseInt(line.substring(4));
    }
    if (random.nextBoolean()) {
      Thread.sleep(random.nextInt(maxPauseMillis));
    }
    // SIGKILL through the process handle: unlike Process.destroyForcibly() it leaves the pipe
    // open, so acknowledgements printed just before the kill are still read below.
    p.toHandle().destroyForcibly();
    while ((line = in.readLine()) != null) {
      if (line.startsWith("ack ")) {
        acked = Integer.parseInt(line.substring(4));
      }
    }
    return acked;
  }
}
