package io.sluice.admin.cli;

import com.fasterxml.jackson.databind.JsonNode;
import io.sluice.core.config.ConfigFiles;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.history.ConfigVersion;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Instant;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** The configuration history of the node: push, history, diff, rollback. */
@Command(
    name = "config",
    mixinStandardHelpOptions = true,
    description = "Push a configuration, list and compare applied versions, roll back to one.",
    subcommands = {
      ConfigCommand.Push.class,
      ConfigCommand.History.class,
      ConfigCommand.Show.class,
      ConfigCommand.Diff.class,
      ConfigCommand.Rollback.class
    },
    footer = {
      "",
      "Example:",
      "  sluice ctl config push sluice.yaml --reason 'add api service'",
      "  sluice ctl config history",
      "  sluice ctl config diff 4 5",
      "  sluice ctl config rollback 4 --reason 'api answers wrong'"
    })
final class ConfigCommand implements Runnable {
  @picocli.CommandLine.Spec picocli.CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CtlException(
        CtlMain.USAGE, "give a subcommand: push, history, show, diff or rollback");
  }

  private static final String CONFIG = "/api/v1/config";

  /** Uploads a file with the files it references and applies it as a new version. */
  @Command(
      name = "push",
      mixinStandardHelpOptions = true,
      description =
          "Upload FILE and the files it references (master files, GeoIP database); the node"
              + " checks it as 'sluice check' does, reports every problem, or applies it as a new"
              + " version (operator role).",
      footer = {"", "Example:", "  sluice ctl config push sluice.yaml -r 'add api service'"})
  static final class Push extends ApiCommand {
    @Parameters(paramLabel = "FILE", description = "The configuration file (YAML).")
    Path file;

    @Option(
        names = {"-r", "--reason"},
        paramLabel = "TEXT",
        description = "Why, for the history and the audit log.")
    String reason;

    @Override
    public Integer call() {
      String yaml;
      try {
        yaml = Files.readString(file);
      } catch (NoSuchFileException e) {
        throw new CtlException(CtlMain.USAGE, "file not found: " + file);
      } catch (IOException e) {
        throw new CtlException(CtlMain.USAGE, "cannot read " + file + ": " + e.getMessage());
      }
      ApiClient api = api();
      // The files the YAML references, found as the node would; what cannot be read locally is
      // left out and the node names it among the problems.
      Map<String, String> files = new TreeMap<>();
      SluiceConfig parsed = ConfigLoader.read(file).config();
      if (parsed != null) {
        for (String f : ConfigFiles.referenced(parsed).values()) {
          Path p = parsed.resolve(f);
          if (Files.isRegularFile(p) && Files.isReadable(p)) {
            files.put(f, upload(api, p));
          }
        }
      }
      Map<String, Object> body = body(reason, null);
      byte[] text = yaml.getBytes(StandardCharsets.UTF_8);
      int maxPart = maxPart(api, ConfigVersion.sha256(text));
      if (text.length > maxPart / 2) {
        body.put("yamlSha256", upload(api, text));
      } else {
        body.put("yaml", yaml);
      }
      body.put("files", files);
      return printVersion(
          api.send("POST", CONFIG + "/push", body, ApiClient.RELOAD_TIMEOUT_MILLIS));
    }

    private static int maxPart(ApiClient api, String sha) {
      return api.get(CONFIG + "/blobs/" + sha).path("maxPartBytes").asInt(65_536);
    }

    private static String upload(ApiClient api, byte[] bytes) {
      String sha = ConfigVersion.sha256(bytes);
      send(api, sha, bytes.length, new java.io.ByteArrayInputStream(bytes));
      return sha;
    }

    private static String upload(ApiClient api, Path p) {
      String sha;
      long size;
      try (InputStream in = Files.newInputStream(p)) {
        MessageDigest md = ConfigVersion.digester();
        byte[] buf = new byte[1 << 16];
        for (int n; (n = in.read(buf)) > 0; ) {
          md.update(buf, 0, n);
        }
        sha = HexFormat.of().formatHex(md.digest());
        size = Files.size(p);
      } catch (IOException e) {
        throw new CtlException(CtlMain.FAILED, "cannot read " + p + ": " + e.getMessage());
      }
      try (InputStream in = Files.newInputStream(p)) {
        send(api, sha, size, in);
      } catch (IOException e) {
        throw new CtlException(CtlMain.FAILED, "cannot read " + p + ": " + e.getMessage());
      }
      return sha;
    }

    /** Uploads in parts the node accepts, unless it already holds the content. */
    private static void send(ApiClient api, String sha, long size, InputStream in) {
      JsonNode held = api.get(CONFIG + "/blobs/" + sha);
      if (held.path("held").asBoolean()) {
        return;
      }
      // Leave room below the node's body limit.
      int part = Math.max(1024, held.path("maxPartBytes").asInt(65_536) - 1024);
      try {
        long offset = 0;
        do {
          byte[] chunk = in.readNBytes((int) Math.min(part, size - offset));
          api.sendBytes(
              "PUT",
              CONFIG + "/blobs/" + sha + "?offset=" + offset + "&size=" + size,
              chunk,
              "application/octet-stream");
          offset += chunk.length;
          if (chunk.length == 0) {
            break;
          }
        } while (offset < size);
      } catch (IOException e) {
        throw new CtlException(CtlMain.FAILED, "upload failed: " + e.getMessage());
      }
    }
  }

  /** Lists the kept versions, newest first. */
  @Command(
      name = "history",
      mixinStandardHelpOptions = true,
      description = "List the applied configuration versions kept, newest first (viewer role).",
      footer = {"", "Example:", "  sluice ctl config history"})
  static final class History extends ApiCommand {
    @Override
    public Integer call() {
      JsonNode r = api().get(CONFIG + "/versions");
      if (json()) {
        printJson(r);
        return CtlMain.OK;
      }
      Table t = new Table("VERSION", "TIME", "SOURCE", "ACTOR", "SHA256", "REASON");
      for (JsonNode v : r.path("versions")) {
        String source = v.path("source").asText();
        if (v.hasNonNull("restores")) {
          source += " of " + v.path("restores").asLong();
        }
        t.row(
            v.path("version").asLong() + (v.path("current").asBoolean() ? " *" : ""),
            v.path("time").isTextual()
                ? time().when(Instant.parse(v.path("time").asText()).toEpochMilli())
                : "-",
            source,
            v.path("actor").asText(),
            v.path("sha256").asText().substring(0, 12),
            v.path("reason").asText(""));
      }
      t.print(out(), ctl().colour());
      long current = r.path("current").asLong();
      long applied = r.path("applied").asLong();
      out()
          .println(
              applied == current
                  ? "(* current)"
                  : "(* current; this node still runs version " + applied + ")");
      return CtlMain.OK;
    }
  }

  /** Prints one kept version's YAML. */
  @Command(
      name = "show",
      mixinStandardHelpOptions = true,
      description =
          "Print the YAML of kept version N (default: the current one) and the files it"
              + " references (viewer role).",
      footer = {"", "Example:", "  sluice ctl config show 4"})
  static final class Show extends ApiCommand {
    @Parameters(arity = "0..1", paramLabel = "N", description = "The version.")
    Long version;

    @Override
    public Integer call() {
      long n = version != null ? version : api().get(CONFIG + "/versions").path("current").asLong();
      if (n < 1) {
        throw new CtlException(CtlMain.FAILED, "no configuration version was recorded yet");
      }
      JsonNode v = api().get(CONFIG + "/versions/" + n);
      if (json()) {
        printJson(v);
        return CtlMain.OK;
      }
      out().print(v.path("yaml").asText());
      JsonNode files = v.path("files");
      for (String path : (Iterable<String>) files::fieldNames) {
        out().println("# file " + path + ": sha256 " + files.get(path).asText());
      }
      return CtlMain.OK;
    }
  }

  /** Shows what changed between two versions. */
  @Command(
      name = "diff",
      mixinStandardHelpOptions = true,
      description =
          "Show the unified diff of the YAML of version A and version B, and the referenced"
              + " files that differ (default: the version before the current one, and the"
              + " current one; viewer role).",
      footer = {"", "Example:", "  sluice ctl config diff", "  sluice ctl config diff 3 5"})
  static final class Diff extends ApiCommand {
    @Parameters(index = "0", arity = "0..1", paramLabel = "A", description = "The older version.")
    Long from;

    @Parameters(index = "1", arity = "0..1", paramLabel = "B", description = "The newer version.")
    Long to;

    @Override
    public Integer call() {
      StringBuilder q = new StringBuilder(CONFIG + "/diff");
      String sep = "?";
      if (from != null) {
        q.append(sep).append("from=").append(from);
        sep = "&";
      }
      if (to != null) {
        q.append(sep).append("to=").append(to);
      }
      JsonNode r = api().get(q.toString());
      if (json()) {
        printJson(r);
        return CtlMain.OK;
      }
      String diff = r.path("diff").asText();
      if (diff.isEmpty() && r.path("files").isEmpty()) {
        out()
            .println(
                "versions "
                    + r.path("from").asLong()
                    + " and "
                    + r.path("to").asLong()
                    + " are the same");
        return CtlMain.OK;
      }
      out().print(diff);
      JsonNode files = r.path("files");
      for (String path : (Iterable<String>) files::fieldNames) {
        JsonNode f = files.get(path);
        out()
            .println(
                "file "
                    + path
                    + ": "
                    + f.path("from").asText("(none)")
                    + " -> "
                    + f.path("to").asText("(none)"));
      }
      return CtlMain.OK;
    }
  }

  /** Applies a kept version again, as a new version. */
  @Command(
      name = "rollback",
      mixinStandardHelpOptions = true,
      description =
          "Apply kept version N again, with the files it referenced, as a new version; audited"
              + " as config-rollback (operator role). Never asks.",
      footer = {"", "Example:", "  sluice ctl config rollback 4 -r 'api answers wrong'"})
  static final class Rollback extends ApiCommand {
    @Parameters(paramLabel = "N", description = "The version to restore.")
    long version;

    @Option(
        names = {"-r", "--reason"},
        paramLabel = "TEXT",
        description = "Why, for the history and the audit log.")
    String reason;

    @Override
    public Integer call() {
      Map<String, Object> body = body(reason, null);
      body.put("version", version);
      return printVersion(
          api().send("POST", CONFIG + "/rollback", body, ApiClient.RELOAD_TIMEOUT_MILLIS));
    }
  }
}
