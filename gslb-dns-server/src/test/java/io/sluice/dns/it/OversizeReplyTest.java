package io.sluice.dns.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A reply larger than the interface's MTU still reaches the client, although the native loop sets
 * the don't-fragment bit: the kernel refuses it (EMSGSIZE) and the loop sends it again without the
 * bit. Loopback's MTU of 64 KiB never refuses a DNS reply, so the node runs in a network namespace
 * of its own ({@code unshare --net}, root) with loopback at 1500 ({@link OversizeReplyProbe}).
 */
class OversizeReplyTest {
  @Test
  void aReplyLargerThanTheInterfaceMtuIsSentFragmented() throws Exception {
    String missing = missingTools();
    if (missing != null) {
      if ("true".equals(System.getenv("CI"))) {
        fail(missing + "; CI=true, so this is a failure, not a skip");
      }
      assumeTrue(false, missing);
    }
    String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    String classpath =
        System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
    Path out = Files.createTempFile("sluice-oversize-", ".log");
    try {
      Process p =
          new ProcessBuilder(
                  List.of(
                      "unshare",
                      "--net",
                      "sh",
                      "-c",
                      "ip link set lo mtu 1500 up && exec \"$0\" -cp \"$1\" "
                          + OversizeReplyProbe.class.getName(),
                      java,
                      classpath))
              .redirectErrorStream(true)
              .redirectOutput(out.toFile())
              .start();
      if (!p.waitFor(90, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        fail("the probe did not finish within 90 s:\n" + tail(out));
      }
      String log = tail(out);
      assertEquals(0, p.exitValue(), log);
      assertTrue(log.contains("oversize probe: " + OversizeReplyProbe.STRINGS + " records"), log);
    } finally {
      Files.deleteIfExists(out);
    }
  }

  /** Why the namespace cannot be made here; null when it can. */
  private static String missingTools() throws Exception {
    if (!System.getProperty("os.name", "").toLowerCase().startsWith("linux")) {
      return "not Linux: no network namespaces";
    }
    for (String tool : List.of("unshare", "ip")) {
      if (!onPath(tool)) {
        return tool + " is not installed (Debian: util-linux, iproute2)";
      }
    }
    Process p = new ProcessBuilder("unshare", "--net", "true").redirectErrorStream(true).start();
    if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
      p.destroyForcibly();
      return "cannot make a network namespace here (unshare --net needs root)";
    }
    return null;
  }

  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (Files.isExecutable(Path.of(dir, tool))) {
        return true;
      }
    }
    return false;
  }

  private static String tail(Path file) throws Exception {
    String s = Files.readString(file, StandardCharsets.UTF_8);
    return s.length() > 4000 ? s.substring(s.length() - 4000) : s;
  }
}
