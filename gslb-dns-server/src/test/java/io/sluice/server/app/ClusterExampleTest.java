package io.sluice.server.app;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * The shipped three-node example (config/cluster-example, docs/cluster.md): every node file is
 * valid, and the files differ only in the lines marked {@code this node}.
 */
class ClusterExampleTest {
  private static final Path DIR = Path.of("../config/cluster-example");

  private static List<String> sharedLines(String file) throws Exception {
    return Files.readAllLines(DIR.resolve(file)).stream()
        .filter(l -> !l.strip().startsWith("#") && !l.contains("# this node"))
        .toList();
  }

  @Test
  void everyNodeFileIsValidAndTheyDifferOnlyInTheirOwnLines() throws Exception {
    for (String f : List.of("ns1.yaml", "ns2.yaml", "ns3.yaml")) {
      StringWriter out = new StringWriter();
      CommandLine cli = new CommandLine(new Main()).setOut(new PrintWriter(out));
      assertEquals(0, cli.execute("check", "--config", DIR.resolve(f).toString()), f);
      assertEquals(sharedLines("ns1.yaml"), sharedLines(f), f + " differs outside its own lines");
    }
  }
}
