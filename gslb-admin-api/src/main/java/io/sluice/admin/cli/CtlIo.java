package io.sluice.admin.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Map;

/**
 * Where the CLI reads and writes: its streams, environment, whether the output is a terminal (for
 * colour and prompts), and the clock human times are relative to. Tests pass their own.
 */
public record CtlIo(
    PrintStream out,
    PrintStream err,
    BufferedReader in,
    Map<String, String> env,
    boolean tty,
    Clock clock) {

  /** With the system clock in the local zone. */
  public CtlIo(
      PrintStream out, PrintStream err, BufferedReader in, Map<String, String> env, boolean tty) {
    this(out, err, in, env, tty, new HumanTime.LocalClock());
  }

  /** The process's own streams and environment. */
  public static CtlIo system() {
    return new CtlIo(
        System.out,
        System.err,
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
        System.getenv(),
        System.console() != null);
  }

  /** The same, with times relative to {@code c} and shown in its zone. */
  public CtlIo withClock(Clock c) {
    return new CtlIo(out, err, in, env, tty, c);
  }
}
