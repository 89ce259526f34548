package io.sluice.admin.cli;

import java.io.PrintWriter;
import java.util.Set;
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

  /**
   * The commands: every top-level {@code *Command} class of this package ({@link CommandIndex}).
   * Picocli reads a command's annotations by reflection when it is added, about a quarter of a
   * second for all of them on a cold JVM, so a run adds only the command it names (every one for
   * help, a typo or no command): a rollback is typed when things go wrong.
   */
  private static final CommandIndex COMMANDS = new CommandIndex(CtlMain.class);

  /** Options that, before any command, are the root's own: its help lists every command. */
  private static final Set<String> ROOT_ONLY = Set.of("-h", "--help", "-V", "--version");

  private CtlMain() {}

  /** The whole command tree, every command added: for help and for tests that walk it. */
  static CommandLine commandLine(SluiceCtl root) {
    return commandLine(root, null);
  }

  /** The command tree with only {@code only} added, or every command when it is null. */
  private static CommandLine commandLine(SluiceCtl root, Class<?> only) {
    CommandLine cl = new CommandLine(root);
    if (only != null) {
      cl.addSubcommand(only);
    } else {
      COMMANDS.all().values().forEach(cl::addSubcommand);
    }
    return cl;
  }

  /**
   * The top-level command {@code args} name, or null when they name none that exists (no command,
   * only options, or a typo: picocli then lists every command). Global options may stand before it,
   * with their values.
   */
  static String invoked(String[] args) {
    Class<?> c = invokedClass(args);
    return c == null ? null : c.getAnnotation(picocli.CommandLine.Command.class).name();
  }

  /** The class of the command {@code args} name, or null ({@link #invoked}). */
  private static Class<?> invokedClass(String[] args) {
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (SluiceCtl.OPTIONS_WITH_VALUE.contains(a)) {
        i++;
      } else if (a.equals("--") || ROOT_ONLY.contains(a)) {
        return null;
      } else if (!a.startsWith("-")) {
        return COMMANDS.byName(a);
      }
    }
    return null;
  }

  /** Runs one command with the process's streams; returns the exit code. */
  public static int run(String[] args, DnsVerifier verifier) {
    return run(args, CtlIo.system(), verifier);
  }

  /** Runs one command; returns the exit code. Never calls {@code System.exit}. */
  public static int run(String[] args, CtlIo io, DnsVerifier verifier) {
    SluiceCtl root = new SluiceCtl();
    root.io = io;
    root.verifier = verifier;
    CommandLine cl = commandLine(root, invokedClass(args));
    cl.setOut(new PrintWriter(io.out(), true));
    cl.setErr(new PrintWriter(io.err(), true));
    cl.setColorScheme(
        CommandLine.Help.defaultColorScheme(
            io.tty() ? CommandLine.Help.Ansi.AUTO : CommandLine.Help.Ansi.OFF));
    cl.setExecutionExceptionHandler(new ErrorHandler(io));
    return cl.execute(args);
  }

  /**
   * Prints a failed command's message and gives its exit code. A class, not a lambda: dumping the
   * class-data archive links a lambda's proxy with the picocli interface it implements, and CDS
   * leaves out linked Java 5 classes, picocli's {@code CommandLine} with them (docs/cli.md).
   */
  private static final class ErrorHandler implements CommandLine.IExecutionExceptionHandler {
    private final CtlIo io;

    ErrorHandler(CtlIo io) {
      this.io = io;
    }

    @Override
    public int handleExecutionException(
        Exception e, CommandLine cmd, CommandLine.ParseResult parsed) {
      if (e instanceof CtlException c) {
        io.err().println("sluice ctl: " + c.getMessage());
        return c.exitCode();
      }
      io.err().println("sluice ctl: unexpected error: " + e);
      return FAILED;
    }
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
