package io.sluice.admin.cli;

import java.io.PrintWriter;
import picocli.CommandLine;

/**
 * Entry point of {@code sluice ctl}. Exit codes: {@link #OK} 0, {@link #FAILED} 1 (the command
 * failed, or {@code verify} found a mismatch), {@link #USAGE} 2 (bad arguments or settings), {@link
 * #REFUSED} 3 (unauthorised, forbidden, conflicting, or not confirmed).
 */
public final class CtlMain {
  public static final int OK = 0;
  public static final int FAILED = 1;
  public static final int USAGE = 2;
  public static final int REFUSED = 3;

  private CtlMain() {}

  /** Runs one command with the process's streams; returns the exit code. */
  public static int run(String[] args, DnsVerifier verifier) {
    return run(args, CtlIo.system(), verifier);
  }

  /** Runs one command; returns the exit code. Never calls {@code System.exit}. */
  public static int run(String[] args, CtlIo io, DnsVerifier verifier) {
    SluiceCtl root = new SluiceCtl();
    root.io = io;
    root.verifier = verifier;
    CommandLine cl = new CommandLine(root);
    cl.setOut(new PrintWriter(io.out(), true));
    cl.setErr(new PrintWriter(io.err(), true));
    cl.setColorScheme(
        CommandLine.Help.defaultColorScheme(
            io.tty() ? CommandLine.Help.Ansi.AUTO : CommandLine.Help.Ansi.OFF));
    cl.setExecutionExceptionHandler(
        (e, cmd, parsed) -> {
          if (e instanceof CtlException c) {
            io.err().println("sluice ctl: " + c.getMessage());
            return c.exitCode();
          }
          io.err().println("sluice ctl: unexpected error: " + e);
          return FAILED;
        });
    return cl.execute(args);
  }

  /** For a standalone launcher without DNS verification support. */
  public static void main(String[] args) {
    System.exit(
        run(
            args,
            (server, port, name, type, subnet) -> {
              throw new CtlException(
                  USAGE, "this launcher cannot send DNS queries; use sluice ctl");
            }));
  }
}
