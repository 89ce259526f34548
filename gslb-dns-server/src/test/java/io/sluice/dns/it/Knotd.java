package io.sluice.dns.it;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Finds the {@code knotd} binary the tests against Knot run. */
final class Knotd {
  private Knotd() {}

  /**
   * {@code -Dsluice.knotd=PATH} names the binary; otherwise it is looked up on PATH and in sbin.
   * Null when there is none.
   */
  static String find() {
    String given = System.getProperty("sluice.knotd");
    if (given != null) {
      return Files.isExecutable(Path.of(given)) ? given : null;
    }
    List<String> dirs = new ArrayList<>();
    String path = System.getenv("PATH");
    if (path != null) {
      dirs.addAll(Arrays.asList(path.split(File.pathSeparator)));
    }
    dirs.add("/usr/sbin");
    dirs.add("/usr/local/sbin");
    for (String d : dirs) {
      Path p = Path.of(d, "knotd");
      if (Files.isExecutable(p)) {
        return p.toString();
      }
    }
    return null;
  }
}
