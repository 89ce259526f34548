package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.store.StateRepair;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code sluice state}: offline maintenance of a node's state directory. */
@Command(
    name = "state",
    mixinStandardHelpOptions = true,
    description = "Offline maintenance of a state directory (stop the node first).",
    footer = {"", "Example:", "  sluice state repair --state-dir /var/lib/sluice"},
    subcommands = {StateCommand.Repair.class})
final class StateCommand implements Callable<Integer> {

  @Override
  public Integer call() {
    System.err.println("usage: sluice state repair --state-dir DIR | --config FILE");
    return 2;
  }

  /** {@code sluice state repair}: see {@link StateRepair}. */
  @Command(
      name = "repair",
      mixinStandardHelpOptions = true,
      description = {
        "Make a damaged traffic store openable again. The damaged files are copied into"
            + " traffic/damaged-<time>/ first; the newest intact record becomes the state; every"
            + " dropped byte range and record is printed. Does nothing to a store that opens.",
      },
      footer = {
        "",
        "Example:",
        "  sluice state repair --state-dir /var/lib/sluice",
        "  sluice state repair --config /etc/sluice/sluice.yaml"
      })
  static final class Repair implements Callable<Integer> {
    @Option(
        names = "--state-dir",
        paramLabel = "DIR",
        description = "The node's state directory (stateDir in its configuration).")
    Path stateDir;

    @Option(
        names = "--config",
        paramLabel = "FILE",
        description = "Or: the node's configuration file, whose stateDir is repaired.")
    Path config;

    @Override
    public Integer call() {
      if ((stateDir == null) == (config == null)) {
        System.err.println("give either --state-dir DIR or --config FILE");
        return 2;
      }
      try {
        if (stateDir == null) {
          stateDir = ConfigLoader.load(config).stateDirectory();
        }
        StateRepair.Report report = StateRepair.repair(stateDir.toAbsolutePath());
        for (String line : report.lines()) {
          System.out.println(line);
        }
        return 0;
      } catch (IOException e) {
        System.err.println("cannot repair " + stateDir + ": " + e.getMessage());
        return 1;
      } catch (ConfigException e) {
        System.err.println("cannot read " + config + ": " + e.getMessage());
        return 2;
      }
    }
  }
}
