package io.sluice.admin.cli;

import io.sluice.core.config.TokenFile;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;

/**
 * Where a running node can be reached, recorded by the node in {@code <stateDir>/node.properties}
 * beside its local token, so that {@code sluice ctl --state-dir DIR} talks to the node that owns
 * the directory (with that node's token) instead of a default port that may belong to another node.
 *
 * @param pid the node's process id, to tell a live record from one left by a killed process
 * @param adminUrl the admin API's base URL as the node bound it, or null when the API is disabled
 * @param dns the DNS listener as {@code host:port}
 */
public record NodeRecord(long pid, String adminUrl, String dns) {
  /** The file name inside the state directory. */
  public static final String FILE = "node.properties";

  /**
   * Writes the record of the current process to {@code stateDir}, readable by its owner only,
   * replacing any earlier one in one rename.
   */
  public static void write(Path stateDir, String adminUrl, String dns) throws IOException {
    Files.createDirectories(stateDir);
    StringBuilder text = new StringBuilder();
    text.append("# The running Sluice node that owns this state directory; read by sluice ctl.\n");
    text.append("pid=").append(ProcessHandle.current().pid()).append('\n');
    if (adminUrl != null) {
      text.append("url=").append(adminUrl).append('\n');
    }
    text.append("dns=").append(dns).append('\n');
    TokenFile.writePrivate(stateDir.resolve(FILE), text.toString());
  }

  /** Removes the record of the current process from {@code stateDir}; another node's stays. */
  public static void remove(Path stateDir) throws IOException {
    Path file = stateDir.resolve(FILE);
    try {
      NodeRecord r = parse(Files.readString(file, StandardCharsets.UTF_8), file);
      if (r.pid == ProcessHandle.current().pid()) {
        Files.deleteIfExists(file);
      }
    } catch (NoSuchFileException | IllegalArgumentException e) {
      // Nothing of ours to remove.
    }
  }

  /**
   * Reads the record in {@code stateDir} for {@code sluice ctl}; a missing file, or one whose
   * process is gone, is a usage error that says so (a stale address could be another node's).
   */
  static NodeRecord read(Path stateDir) {
    Path file = stateDir.resolve(FILE);
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new CtlException(
          CtlMain.USAGE,
          "no running node recorded in "
              + file
              + " (is the node running with stateDir "
              + stateDir
              + "?); pass --url and --token-file instead");
    } catch (IOException e) {
      throw new CtlException(CtlMain.USAGE, "cannot read " + file + ": " + e.getMessage());
    }
    NodeRecord r;
    try {
      r = parse(text, file);
    } catch (IllegalArgumentException e) {
      throw new CtlException(CtlMain.USAGE, e.getMessage());
    }
    if (!ProcessHandle.of(r.pid).map(ProcessHandle::isAlive).orElse(false)) {
      throw new CtlException(
          CtlMain.USAGE, "the node recorded in " + file + " (pid " + r.pid + ") is not running");
    }
    return r;
  }

  private static NodeRecord parse(String text, Path file) {
    Properties p = new Properties();
    try (Reader r = new StringReader(text)) {
      p.load(r);
    } catch (IOException | IllegalArgumentException e) {
      throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
    }
    String pid = p.getProperty("pid");
    String dns = p.getProperty("dns");
    if (pid == null || !pid.matches("[0-9]{1,19}") || dns == null) {
      throw new IllegalArgumentException(file + " is not a node record (pid= and dns= required)");
    }
    return new NodeRecord(Long.parseLong(pid), p.getProperty("url"), dns);
  }
}
