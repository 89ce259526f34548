package io.sluice.server.app;

import io.netty.util.ResourceLeakDetector;
import io.sluice.admin.cli.CommandIndex;
import io.sluice.admin.cli.CtlMain;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigProblem;
import io.sluice.core.config.SluiceConfig;
import io.sluice.dns.client.DnsjavaVerifier;
import io.sluice.probe.agent.ProbeAgent;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Unmatched;

/**
 * The {@code sluice} command: {@code run} (the default) serves DNS; {@code check} validates; {@code
 * ctl} and {@code probe-agent} are their own programs. Besides the commands named here, every
 * top-level {@code *Command} class of this package is a command ({@link CommandIndex}).
 */
@Command(
    name = "sluice",
    mixinStandardHelpOptions = true,
    version = "sluice 0.1.0",
    description = {
      "Authoritative DNS server for global server load balancing. With no command: run."
    },
    subcommands = {
      Main.Run.class,
      Main.Check.class,
      Main.Ctl.class,
      Main.Agent.class,
      StateCommand.class,
      KeysCommand.class,
      BackupCommands.Backup.class,
      BackupCommands.Restore.class
    },
    footer = {
      "",
      "Example:",
      "  sluice run --config /etc/sluice/sluice.yaml",
      "  sluice check --config sluice.yaml",
      "  sluice ctl status"
    })
public final class Main implements Callable<Integer> {
  /**
   * The logger, in a holder so that {@code sluice ctl} and {@code probe-agent}, which start through
   * this class, do not pay for configuring logging (about a tenth of a second of start-up).
   */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(Main.class);
  }

  /** Exit status for an invalid configuration. */
  static final int INVALID_CONFIG = 2;

  @Mixin private ServerOptions options = new ServerOptions();

  public static void main(String[] args) {
    // ctl and probe-agent parse their own arguments: pass them through untouched.
    if (args.length > 0 && args[0].equals("ctl")) {
      Slf4jLoggerFinder.useStandardError();
      System.exit(CtlMain.run(Arrays.copyOfRange(args, 1, args.length), new DnsjavaVerifier()));
    }
    if (args.length > 0 && args[0].equals("probe-agent")) {
      System.exit(ProbeAgent.run(Arrays.copyOfRange(args, 1, args.length)));
    }
    quietLeakDetector();
    // A thread ended by an exception nobody caught (an Error in some thread while a reload runs
    // the heap out, say) is told in the node's log format, not dumped bare on stderr.
    Thread.setDefaultUncaughtExceptionHandler(
        (t, e) -> Log.LOG.error("thread {} ended: {}", t.getName(), e.toString(), e));
    System.exit(commandLine().execute(args));
  }

  /** Every {@code sluice} command: those {@link Main} names and the package's other commands. */
  static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Main());
    new CommandIndex(Main.class)
        .all()
        .forEach(
            (name, c) -> {
              if (!cl.getSubcommands().containsKey(name)) {
                cl.addSubcommand(c);
              }
            });
    return cl;
  }

  /**
   * Turns Netty's buffer leak detector off in the server unless the operator set its level ({@code
   * -Dio.netty.leakDetection.level=simple}): at its default level it wraps one buffer allocation in
   * 128 with a tracked record, which costs about 20 ns per answer on average, and the DNS path's
   * buffer handling is covered by the tests, which keep it on.
   */
  private static void quietLeakDetector() {
    if (System.getProperty("io.netty.leakDetection.level") == null
        && System.getProperty("io.netty.leakDetectionLevel") == null) {
      ResourceLeakDetector.setLevel(ResourceLeakDetector.Level.DISABLED);
    }
  }

  @Override
  public Integer call() throws Exception {
    return run(options);
  }

  /** Options shared by {@code run} and the bare command. */
  static final class ServerOptions {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        defaultValue = "${env:SLUICE_CONFIG:-config/sluice.yaml}",
        description = "Configuration file (default: ${DEFAULT-VALUE}).")
    Path config;

    @Option(names = "--port", paramLabel = "N", description = "DNS port, overriding dns.port.")
    Integer port;

    @Option(
        names = "--listen",
        paramLabel = "ADDR",
        split = ",",
        description = "Addresses to listen on, overriding dns.listen (comma-separated).")
    List<String> listen;

    @Option(
        names = "--threads",
        paramLabel = "N",
        description = "DNS event-loop threads (0 = one per core), overriding dns.threads.")
    Integer threads;

    @Option(
        names = "--admin-port",
        paramLabel = "N",
        description = "Admin API port, overriding admin.port.")
    Integer adminPort;

    @Option(
        names = "--state-dir",
        paramLabel = "DIR",
        description = "State directory (journal, audit log, verdicts), overriding stateDir.")
    Path stateDir;

    @Option(
        names = "--nsid",
        paramLabel = "TEXT",
        description =
            "This node's NSID (RFC 5001), overriding dns.nsid: text, or hex after 0x."
                + " Node-local, also under a cluster's shared configuration.")
    String nsid;

    @Option(
        names = "--takeover",
        description =
            "Take over from the node running on the same state directory without losing a query:"
                + " its listening sockets, then its state; it drains and exits once this process"
                + " answers, and serves on if this one fails (see docs/restart.md).")
    boolean takeover;

    CliOverrides overrides() {
      return new CliOverrides(
          port,
          listen,
          threads,
          adminPort,
          stateDir == null ? null : stateDir.toAbsolutePath().toString(),
          nsid);
    }
  }

  /** Serves DNS until the process is stopped; reloads on SIGHUP. */
  @Command(
      name = "run",
      aliases = "serve",
      mixinStandardHelpOptions = true,
      description = "Serve DNS until stopped; SIGHUP reloads the configuration (the default).",
      footer = {
        "",
        "Example:",
        "  sluice run --config /etc/sluice/sluice.yaml",
        "  sluice serve --config sluice.yaml --port 5353 --admin-port 8053"
      })
  static final class Run implements Callable<Integer> {
    @Mixin private ServerOptions options = new ServerOptions();

    @Override
    public Integer call() throws Exception {
      return run(options);
    }
  }

  /** Validates a configuration, zones included, and exits. */
  @Command(
      name = "check",
      mixinStandardHelpOptions = true,
      description = "Validate the configuration and its zones, then exit.",
      footer = {"", "Example:", "  sluice check --config /etc/sluice/sluice.yaml"})
  static final class Check implements Callable<Integer> {
    @Mixin private ServerOptions options = new ServerOptions();

    @Override
    public Integer call() {
      SluiceConfig config = load(options, "invalid configuration:", true);
      if (config == null) {
        return INVALID_CONFIG;
      }
      System.out.println(options.config + ": OK, " + config.zones().size() + " zone(s)");
      return 0;
    }
  }

  /**
   * {@code sluice ctl}, listed in help: {@link #main} hands its arguments to {@link CtlMain} before
   * this model is built.
   */
  @Command(
      name = "ctl",
      description = "The on-call CLI: status, moves, rollback, audit… ('sluice ctl --help').",
      footer = {"", "Example:", "  sluice ctl status", "  sluice ctl rollback app.example.com"})
  static final class Ctl implements Callable<Integer> {
    @Unmatched List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
      return CtlMain.run(args.toArray(String[]::new), new DnsjavaVerifier());
    }
  }

  /**
   * {@code sluice probe-agent}, listed in help: {@link #main} hands its arguments to {@link
   * ProbeAgent} before this model is built.
   */
  @Command(
      name = "probe-agent",
      description = "A remote probe vantage reporting to a node ('sluice probe-agent --help').",
      footer = {
        "",
        "Example:",
        "  sluice probe-agent --config sluice.yaml --vantage ams-probe \\",
        "      --report-to https://fra-node-1:8053/api/v1/probe-reports --token-file probe.token"
      })
  static final class Agent implements Callable<Integer> {
    @Unmatched List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
      return ProbeAgent.run(args.toArray(String[]::new));
    }
  }

  /**
   * Loads and checks the file ({@link ConfigCheck}); prints every problem under {@code heading} and
   * returns null when there is any.
   */
  private static SluiceConfig load(ServerOptions o, String heading, boolean compile) {
    try {
      return ConfigCheck.load(o.config, o.overrides(), compile);
    } catch (ConfigException e) {
      printProblems(heading, e);
      return null;
    }
  }

  private static void printProblems(String heading, ConfigException e) {
    System.err.println(heading);
    for (ConfigProblem p : e.problems()) {
      System.err.println("  " + p);
    }
  }

  private static int run(ServerOptions o) throws InterruptedException {
    String heading = "invalid configuration, not starting:";
    SluiceConfig config = load(o, heading, false);
    if (config == null) {
      return INVALID_CONFIG;
    }
    NodeProcess process;
    try {
      process = NodeProcess.start(config, o.config, o.overrides(), o.takeover);
    } catch (ConfigException e) {
      // The zones failed to compile at start: add what the policy chain says about the file too.
      printProblems(
          heading,
          new ConfigException(
              ConfigCheck.merge(
                  e.problems(),
                  ConfigCheck.laterPhaseProblems(config, o.config.toString(), true))));
      return INVALID_CONFIG;
    } catch (IOException | RuntimeException e) {
      // Never a stack trace for the operator: say what failed, the log has the details. A
      // damaged state directory says itself how to repair it (StateCorruptException).
      Log.LOG.debug("start failed", e);
      System.err.println("cannot start: " + e.getMessage());
      return 1;
    }
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  Log.LOG.info("stopping");
                  process.close();
                },
                "sluice-shutdown"));
    Log.LOG.info(
        "serving {} zone(s) from {} on port {}",
        config.zones().size(),
        o.config,
        process.runtime().node().port());
    // Until stopped, or handed over to a process started with --takeover and drained.
    process.awaitStopped();
    return 0;
  }
}
