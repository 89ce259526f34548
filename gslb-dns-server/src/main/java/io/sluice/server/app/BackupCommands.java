package io.sluice.server.app;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.CookieConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.config.TransferConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.config.history.FileConfigStore;
import io.sluice.core.spi.StateBackups;
import io.sluice.core.store.StateArchive;
import io.sluice.core.traffic.TrafficSystem;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StringReader;
import java.net.HttpURLConnection;
import java.net.Proxy;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code sluice backup FILE} and {@code sluice restore FILE}: a node's state directory as one
 * archive ({@link StateArchive}, docs/backup.md). A running node makes the archive itself, through
 * its admin API, while no change can be written; a stopped node's directory is archived under its
 * lock. A restore goes into a stopped node's directory only.
 */
final class BackupCommands {
  private BackupCommands() {}

  /** Where the node's state directory is: its configuration file, or the directory itself. */
  static final class Target {
    @Option(
        names = "--config",
        paramLabel = "FILE",
        defaultValue = "${env:SLUICE_CONFIG:-config/sluice.yaml}",
        description =
            "The node's configuration file, whose stateDir is used (default: ${DEFAULT-VALUE}).")
    Path config;

    @Option(
        names = "--state-dir",
        paramLabel = "DIR",
        description = "The state directory itself, instead of the one the configuration names.")
    Path stateDir;

    /** The configuration read by {@link #resolve}, or null when only a directory is given. */
    SluiceConfig loaded;

    /**
     * The state directory, reading the configuration unless {@code --state-dir} names it; null
     * (after saying why on standard error) when the configuration cannot be read.
     */
    Path resolve(String command) {
      try {
        loaded = stateDir != null ? null : ConfigLoader.load(config);
      } catch (ConfigException e) {
        System.err.println(command + ": cannot read " + config + ": " + e.getMessage());
        return null;
      }
      return (loaded == null ? stateDir : loaded.stateDirectory()).toAbsolutePath().normalize();
    }
  }

  /**
   * The files of {@code config}'s state directory that hold secrets besides those named like one:
   * the DNS cookie secrets and the zone transfer TSIG keys, where the configuration puts them.
   */
  static Set<String> secretFiles(SluiceConfig config) {
    Set<String> out = new LinkedHashSet<>();
    Path dir = config.stateDirectory().toAbsolutePath().normalize();
    CookieConfig cookies = config.dns().cookies();
    relative(dir, cookies.secretFile(), out);
    relative(dir, cookies.previousSecretFile(), out);
    for (ZoneConfig z : config.zones()) {
      TransferConfig t = z.transfer();
      if (t != null && t.tsig() != null && t.tsig().secretFile() != null) {
        relative(dir, t.tsig().secretFile(), out);
      }
    }
    return out;
  }

  private static void relative(Path dir, String file, Set<String> out) {
    if (file != null) {
      Path p = dir.resolve(file).normalize();
      if (p.startsWith(dir)) {
        out.add(dir.relativize(p).toString().replace(p.getFileSystem().getSeparator(), "/"));
      }
    }
  }

  /**
   * The running node's backups: its state directory copied while the traffic state, audit log and
   * configuration history are held, then archived.
   */
  static StateBackups source(SluiceConfig config, TrafficSystem traffic, FileConfigStore history) {
    Path dir = config.stateDirectory();
    Set<String> secrets = secretFiles(config);
    return withSecrets ->
        StateArchive.bytes(
            dir,
            step -> traffic.quiesced(() -> history.quiesced(step)),
            new StateArchive.Options(withSecrets, secrets));
  }

  /** {@code sluice backup FILE}. */
  @Command(
      name = "backup",
      mixinStandardHelpOptions = true,
      description = {
        "Back up a node's state directory to FILE, also while the node runs.",
        "Write a backup of a node's state directory (traffic state, journal, audit log, switch"
            + " records, configuration history, verdicts, zone serials and secrets) to FILE, a"
            + " zip archive readable only by you. A running node makes it through its admin API"
            + " while no change can be written; a stopped node's directory is read under its"
            + " lock. See docs/backup.md.",
      },
      footer = {
        "",
        "Example:",
        "  sluice backup --config /etc/sluice/sluice.yaml /root/sluice-$(date +%%F).zip"
      })
  static final class Backup implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "The archive to write (must not exist).")
    Path file;

    @picocli.CommandLine.Mixin Target target = new Target();

    @Option(
        names = "--no-secrets",
        description =
            "Leave the secrets out (admin.token, cookie secrets, TSIG keys, the generated HTTPS"
                + " key): a restored node then creates new ones.")
    boolean noSecrets;

    @Option(
        names = "--url",
        paramLabel = "URL",
        description =
            "The running node's admin API (default: the one it recorded in its state directory).")
    String url;

    @Option(
        names = "--token-file",
        paramLabel = "FILE",
        description =
            "An admin token for the running node (default: SLUICE_TOKEN, else the node's"
                + " admin.token).")
    Path tokenFile;

    @Override
    public Integer call() {
      if (Files.exists(file)) {
        System.err.println("sluice backup: " + file + " exists; name a new file");
        return 2;
      }
      Path dir = target.resolve("sluice backup");
      if (dir == null) {
        return 2;
      }
      SluiceConfig config = target.loaded;
      StateArchive.Options options =
          new StateArchive.Options(!noSecrets, config == null ? Set.of() : secretFiles(config));
      Path tmp = file.toAbsolutePath().resolveSibling(file.getFileName() + ".partial");
      try {
        StateArchive.Manifest m;
        if (url == null) {
          try {
            m = StateArchive.writeOffline(dir, options, newPrivateFile(tmp));
          } catch (StateArchive.InUseException running) {
            Files.deleteIfExists(tmp);
            m = fetch(recordedUrl(dir), token(dir), !noSecrets, tmp);
          }
        } else {
          m = fetch(url, token(dir), !noSecrets, tmp);
        }
        Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        System.out.printf(
            "backup of %s (%s) written to %s: %d files, %d bytes, state format %d%n",
            dir,
            m.online() ? "running node" : "stopped node",
            file,
            m.files().size(),
            m.bytes(),
            m.stateFormat());
        if (!m.secretFiles().isEmpty()) {
          System.err.println(
              "sluice backup: WARNING: "
                  + file
                  + " holds secrets ("
                  + String.join(", ", m.secretFiles())
                  + "): keep it as safe as the node itself, or use --no-secrets");
        }
        return 0;
      } catch (java.nio.file.AccessDeniedException e) {
        System.err.println(
            "sluice backup: cannot read "
                + e.getFile()
                + ": permission denied (run it as root or as the node's user, or pass --url and"
                + " --token-file)");
        return 1;
      } catch (IOException | RuntimeException e) {
        try {
          Files.deleteIfExists(tmp);
        } catch (IOException ignored) {
          // The message below says what failed; a partial file left behind is named .partial.
        }
        System.err.println("sluice backup: " + e.getMessage());
        return 1;
      }
    }

    private String token(Path dir) throws IOException {
      if (tokenFile != null) {
        return TokenFile.read(tokenFile);
      }
      String env = System.getenv("SLUICE_TOKEN");
      if (env != null && !env.isBlank()) {
        return env.strip();
      }
      try {
        return TokenFile.read(dir.resolve(AdminBootstrapToken.FILE));
      } catch (NoSuchFileException e) {
        throw new IOException(
            "the node is running and has no local admin token in "
                + dir
                + ": pass --token-file or set SLUICE_TOKEN (an admin token)");
      }
    }
  }

  /** The admin URL a running node recorded in its state directory. */
  private static String recordedUrl(Path dir) throws IOException {
    Properties p = new Properties();
    try {
      p.load(
          new StringReader(
              Files.readString(
                  dir.resolve(io.sluice.admin.cli.NodeRecord.FILE), StandardCharsets.UTF_8)));
    } catch (NoSuchFileException e) {
      throw new IOException(
          "the state directory "
              + dir
              + " is in use, but no node recorded its address: pass --url");
    }
    String url = p.getProperty("url");
    if (url == null) {
      throw new IOException("the node running on " + dir + " has no admin API enabled");
    }
    return url;
  }

  /** Asks the running node for its backup and checks the archive it sent. */
  private static StateArchive.Manifest fetch(String url, String token, boolean secrets, Path tmp)
      throws IOException {
    String base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    HttpURLConnection c =
        (HttpURLConnection)
            URI.create(base + "/api/v1/state/backup?secrets=" + secrets)
                .toURL()
                .openConnection(Proxy.NO_PROXY);
    c.setConnectTimeout(5_000);
    c.setReadTimeout(120_000);
    c.setRequestProperty("Authorization", "Bearer " + token);
    try {
      int status = c.getResponseCode();
      if (status != 200) {
        InputStream err = c.getErrorStream();
        String body = err == null ? "" : new String(err.readAllBytes(), StandardCharsets.UTF_8);
        throw new IOException("the node at " + base + " answered " + status + ": " + body.strip());
      }
      try (InputStream in = c.getInputStream();
          OutputStream out = newPrivateFile(tmp)) {
        in.transferTo(out);
      }
    } catch (java.net.ConnectException e) {
      throw new IOException("cannot connect to the node's admin API at " + base, e);
    } finally {
      c.disconnect();
    }
    return StateArchive.verify(tmp);
  }

  /** A new file only its owner may read: a backup holds the audit log, and often secrets. */
  private static OutputStream newPrivateFile(Path f) throws IOException {
    Files.deleteIfExists(f);
    try {
      Files.createFile(
          f, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(f);
    }
    return Files.newOutputStream(f);
  }

  /** {@code sluice restore FILE}. */
  @Command(
      name = "restore",
      mixinStandardHelpOptions = true,
      description = {
        "Restore a backup into a stopped node's state directory.",
        "Restore a backup made by 'sluice backup' into a stopped node's state directory, which"
            + " must be empty unless --replace. The archive's format and every file's checksum"
            + " are checked first; a directory a running node holds is refused. See"
            + " docs/backup.md.",
      },
      footer = {
        "",
        "Example:",
        "  systemctl stop sluice",
        "  sluice restore --replace /root/sluice-2026-11-30.zip",
        "  systemctl start sluice"
      })
  static final class Restore implements Callable<Integer> {
    @Parameters(paramLabel = "FILE", description = "The archive 'sluice backup' wrote.")
    Path file;

    @picocli.CommandLine.Mixin Target target = new Target();

    @Option(
        names = "--replace",
        description =
            "Restore over a directory that is not empty: its content is moved aside to"
                + " <dir>.replaced-<time> first.")
    boolean replace;

    @Override
    public Integer call() {
      Path dir = target.resolve("sluice restore");
      if (dir == null) {
        return 2;
      }
      try {
        StateArchive.Restored r = StateArchive.restore(file, dir, replace);
        StateArchive.Manifest m = r.manifest();
        System.out.printf(
            "restored %s into %s: %d files, %d bytes, made %s by %s (%s)%n",
            file,
            dir,
            m.files().size(),
            m.bytes(),
            m.created(),
            m.release(),
            m.online() ? "running node" : "stopped node");
        r.notes().forEach(System.out::println);
        if (!m.secrets()) {
          System.out.println(
              "the backup holds no secrets: the node creates a new local admin token, DNS cookie"
                  + " secret and TSIG keys on start; put the cluster's and the secondaries' keys"
                  + " back first (docs/backup.md)");
        }
        System.out.println("start the node");
        return 0;
      } catch (IOException e) {
        System.err.println("sluice restore: " + e.getMessage());
        return 1;
      }
    }
  }
}
