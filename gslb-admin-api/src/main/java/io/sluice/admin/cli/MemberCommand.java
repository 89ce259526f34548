package io.sluice.admin.cli;

import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Dynamic members of a pool: add or re-weight, remove. */
@Command(
    name = "member",
    mixinStandardHelpOptions = true,
    description =
        "Add, re-weight or remove a pool's dynamic members (autoscaling, deploy pipelines): served"
            + " and health-checked at once, kept across restarts and reloads, no reload needed.",
    subcommands = {MemberCommand.Set.class, MemberCommand.Remove.class},
    footer = {
      "",
      "Example:",
      "  sluice ctl member set eu-west-1 i-0a1b 10.0.3.17 --weight 2 -r 'asg scale-out'",
      "  sluice ctl member remove eu-west-1 i-0a1b -r 'asg scale-in'"
    })
final class MemberCommand implements Runnable {
  @Override
  public void run() {
    throw new CtlException(CtlMain.USAGE, "give a subcommand: set or remove");
  }

  static String path(String pool, String name) {
    return "/api/v1/pools/" + ApiClient.encode(pool) + "/members/" + ApiClient.encode(name);
  }

  /** Adds a member, or changes its address or weight. */
  @Command(
      name = "set",
      mixinStandardHelpOptions = true,
      description = "Add member NAME at ADDRESS to POOL, or change its address or weight.",
      footer = {"", "Example:", "  sluice ctl member set eu-west-1 i-0a1b 10.0.3.17 --weight 2"})
  static final class Set extends ApiCommand {
    @Parameters(index = "0", paramLabel = "POOL", description = "The pool.")
    String pool;

    @Parameters(index = "1", paramLabel = "NAME", description = "The member's name in the pool.")
    String name;

    @Parameters(index = "2", paramLabel = "ADDRESS", description = "Its IPv4 or IPv6 address.")
    String address;

    @Option(names = "--weight", paramLabel = "N", description = "0..65535 (default 1).")
    Integer weight;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      Map<String, Object> b = body(change.reason, change.requestId);
      b.put("address", address);
      if (weight != null) {
        b.put("weight", weight);
      }
      return printResult(api().send("PUT", path(pool, name), b));
    }
  }

  /** Removes a member. */
  @Command(
      name = "remove",
      mixinStandardHelpOptions = true,
      description = "Remove dynamic member NAME from POOL.",
      footer = {"", "Example:", "  sluice ctl member remove eu-west-1 i-0a1b"})
  static final class Remove extends ApiCommand {
    @Parameters(index = "0", paramLabel = "POOL", description = "The pool.")
    String pool;

    @Parameters(index = "1", paramLabel = "NAME", description = "The member's name in the pool.")
    String name;

    @Mixin ChangeOptions change;

    @Override
    public Integer call() {
      return printResult(
          api().send("DELETE", path(pool, name), body(change.reason, change.requestId)));
    }
  }
}
