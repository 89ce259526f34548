package io.sluice.core.testing;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The command line of a child JVM running a class of this test's class path. */
public final class ChildJvm {
  private ChildJvm() {}

  /**
   * {@code java} with this test's class path and a heap of {@code heapMb} megabytes, then {@code
   * options}, running {@code main} with {@code args}: small and quick to start (C1 only, serial
   * GC), since several may share the test machine. The list can be added to.
   */
  public static List<String> command(
      int heapMb, List<String> options, Class<?> main, String... args) {
    List<String> cmd =
        new ArrayList<>(
            List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1",
                "-XX:+UseSerialGC",
                "-Xmx" + heapMb + "m"));
    cmd.addAll(options);
    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), main.getName()));
    cmd.addAll(List.of(args));
    return cmd;
  }
}
