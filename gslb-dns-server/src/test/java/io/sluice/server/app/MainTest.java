package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line: usage, and refusing an invalid configuration with every problem printed. */
class MainTest {
  @TempDir Path dir;

  @Test
  void helpListsTheOptions() {
    StringWriter out = new StringWriter();
    CommandLine cli = new CommandLine(new Main()).setOut(new PrintWriter(out));
    assertEquals(0, cli.execute("--help"));
    for (String option : new String[] {"--config", "--port", "--listen", "--threads", "run"}) {
      assertTrue(out.toString().contains(option), option + " in:\n" + out);
    }
  }

  @Test
  void helpListsEveryCommandAndEachHelpHasAnExample() {
    StringWriter out = new StringWriter();
    CommandLine cli = Main.commandLine().setOut(new PrintWriter(out));
    assertEquals(0, cli.execute("--help"));
    // The commands Main names, and any other *Command class of the package.
    for (String command : new String[] {"run, serve", "check", "ctl", "probe-agent", "state"}) {
      assertTrue(out.toString().contains("  " + command + " "), command + " in:\n" + out);
    }
    List<CommandLine> all = new ArrayList<>();
    collect(Main.commandLine(), all);
    assertTrue(all.size() >= 7, "commands: " + all.size());
    PrintStream original = System.err;
    ByteArrayOutputStream warnings = new ByteArrayOutputStream();
    System.setErr(new PrintStream(warnings, true, StandardCharsets.UTF_8));
    try {
      for (CommandLine c : all) {
        StringWriter help = new StringWriter();
        c.usage(new PrintWriter(help));
        String name = c.getCommandSpec().qualifiedName(" ");
        assertTrue(help.toString().contains("Example:"), "no example in the help of " + name);
        assertTrue(help.toString().contains("  " + name), "no example of " + name + ":\n" + help);
      }
    } finally {
      System.setErr(original);
    }
    // A % in a help text that is not a format (such as date +%F) makes picocli warn on stderr.
    assertEquals("", warnings.toString(StandardCharsets.UTF_8));
  }

  private static void collect(CommandLine c, List<CommandLine> into) {
    into.add(c);
    c.getSubcommands().values().stream().distinct().forEach(s -> collect(s, into));
  }

  @Test
  void invalidConfigIsRefusedWithEveryProblem() throws Exception {
    Path file = dir.resolve("bad.yaml");
    Files.writeString(
        file,
        """
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: a, type: A, data: 1.2.3 }
              - { name: b, type: AAAA, data: nope }
        """);
    PrintStream original = System.err;
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int status;
    try {
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      status = new CommandLine(new Main()).execute("run", "--config", file.toString());
    } finally {
      System.setErr(original);
    }
    String printed = err.toString(StandardCharsets.UTF_8);
    assertEquals(Main.INVALID_CONFIG, status);
    assertTrue(
        printed.contains("zones[0].records[0].data[0]: invalid IPv4 address '1.2.3'"), printed);
    assertTrue(
        printed.contains("zones[0].records[1].data[0]: invalid IPv6 address 'nope'"), printed);
  }

  @Test
  void checkAcceptsTheShippedExample() {
    StringWriter unused = new StringWriter();
    CommandLine cli = new CommandLine(new Main()).setOut(new PrintWriter(unused));
    assertEquals(0, cli.execute("check", "--config", "../config/sluice.yaml"));
  }
}
