package io.sluice.admin.cli;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * Where the CLI reads and writes: its streams, environment, and whether the output is a terminal
 * (for colour and prompts). Tests pass their own.
 */
public record CtlIo(
    PrintStream out, PrintStream err, BufferedReader in, Map<String, String> env, boolean tty) {

  /** The process's own streams and environment. */
  public static CtlIo system() {
    return new CtlIo(
        System.out,
        System.err,
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)),
        System.getenv(),
        System.console() != null);
  }
}
