package io.sluice.admin.cli;

import io.sluice.core.config.TokenFile;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** The root of {@code sluice ctl}: global options and how the server and token are found. */
@Command(
    name = "sluice ctl",
    mixinStandardHelpOptions = true,
    version = "sluice ctl 0.1",
    description = "Operate a Sluice GSLB node through its admin API.",
    footer = {
      "",
      "The server and token come from --url/--token (or --token-file), else",
      "SLUICE_ADMIN_URL/SLUICE_TOKEN, else the config file (--config, SLUICE_CTL_CONFIG, or",
      "~/.config/sluice/ctl.properties with lines url=..., token=..., dns=..., caFile=...); with",
      "no token there, the token is read from SLUICE_TOKEN_FILE. Last, --state-dir DIR (or",
      "SLUICE_STATE_DIR) reaches the local node owning DIR: the admin URL and DNS address it",
      "recorded in DIR/node.properties, and its DIR/admin.token.",
      "A private CA for https:// comes from --ca-file, SLUICE_CA_FILE or caFile= (relative to the",
      "config file).",
      "Exit codes: 0 ok, 1 failed, 2 usage, 3 refused or unauthorised.",
      "",
      "Example:",
      "  sluice ctl status",
      "  sluice ctl rollback app.example.com --reason 'bad switch'"
    })
final class SluiceCtl {
  static final String DEFAULT_URL = "http://127.0.0.1:8053";

  /**
   * The options below that take a value, so {@link CtlMain} can tell the command word from an
   * option's value without building the command model (CtlTest checks it against the model).
   */
  static final Set<String> OPTIONS_WITH_VALUE =
      Set.of("--url", "--token", "--token-file", "--state-dir", "--config", "--ca-file");

  @Option(
      names = "--url",
      scope = ScopeType.INHERIT,
      paramLabel = "URL",
      description = "Admin API base URL (default: " + DEFAULT_URL + ").")
  String url;

  @Option(
      names = "--token",
      scope = ScopeType.INHERIT,
      paramLabel = "TOKEN",
      description = "Bearer token (prefer SLUICE_TOKEN: flags are visible to other users).")
  String token;

  @Option(
      names = "--token-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "Read the bearer token from FILE, for example a node's <stateDir>/admin.token"
              + " (default: SLUICE_TOKEN_FILE, after every other source).")
  Path tokenFile;

  @Option(
      names = "--state-dir",
      scope = ScopeType.INHERIT,
      paramLabel = "DIR",
      description =
          "A local node's state directory: its recorded admin URL and DNS address"
              + " (node.properties) and its admin.token, used when nothing else sets them"
              + " (default: SLUICE_STATE_DIR).")
  Path stateDir;

  @Option(
      names = "--config",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description = "Properties file with url=, token=, dns= and caFile= lines.")
  Path config;

  @Option(
      names = "--ca-file",
      scope = ScopeType.INHERIT,
      paramLabel = "FILE",
      description =
          "Trust only the PEM CA certificate(s) in FILE for an https:// URL, for a node whose"
              + " certificate a private CA signed (default: SLUICE_CA_FILE, else caFile= in the"
              + " config file, else the JVM's trust store).")
  Path caFile;

  @Option(
      names = "--json",
      scope = ScopeType.INHERIT,
      description = "Print the API's JSON instead of a table, for scripts.")
  boolean json;

  @Option(
      names = "--no-color",
      scope = ScopeType.INHERIT,
      description =
          "Never colour the output (colour is used on a terminal unless NO_COLOR is set).")
  boolean noColor;

  CtlIo io;
  DnsVerifier verifier;
  private Properties file;
  private Path loadedFrom;

  String resolvedUrl() {
    String u = first(url, io.env().get("SLUICE_ADMIN_URL"), fileValue("url"), null);
    if (u != null) {
      return u;
    }
    Path dir = nodeStateDir();
    if (dir == null) {
      return DEFAULT_URL;
    }
    NodeRecord node = NodeRecord.read(dir);
    if (node.adminUrl() == null) {
      throw new CtlException(
          CtlMain.USAGE,
          "the node recorded in " + dir.resolve(NodeRecord.FILE) + " has no admin API enabled");
    }
    return node.adminUrl();
  }

  /** The DNS address recorded by the node in the state directory, or null when none is given. */
  String recordedDns() {
    Path dir = nodeStateDir();
    return dir == null ? null : NodeRecord.read(dir).dns();
  }

  /** {@code --state-dir}, else {@code SLUICE_STATE_DIR}, else null. */
  private Path nodeStateDir() {
    if (stateDir != null) {
      return stateDir;
    }
    String env = io.env().get("SLUICE_STATE_DIR");
    return env == null || env.isBlank() ? null : Path.of(env);
  }

  /**
   * The token, from the first source that has one: {@code --token}, {@code --token-file}, {@code
   * SLUICE_TOKEN}, the config file's {@code token=}, {@code SLUICE_TOKEN_FILE}, then the state
   * directory's {@code admin.token}. The local node's token comes last so that it never overrides a
   * token the operator chose.
   */
  String resolvedToken() {
    if (token != null && !token.isBlank()) {
      return token.trim();
    }
    if (tokenFile != null) {
      return readTokenFile(tokenFile, "--token-file");
    }
    String t = first(io.env().get("SLUICE_TOKEN"), fileValue("token"), null, null);
    if (t != null) {
      return t.trim();
    }
    String envFile = io.env().get("SLUICE_TOKEN_FILE");
    if (envFile != null && !envFile.isBlank()) {
      return readTokenFile(Path.of(envFile), "SLUICE_TOKEN_FILE");
    }
    Path dir = nodeStateDir();
    if (dir != null) {
      return readTokenFile(dir.resolve("admin.token"), "--state-dir");
    }
    throw new CtlException(
        CtlMain.USAGE,
        "no token: pass --token, --token-file or --state-dir, set SLUICE_TOKEN or"
            + " SLUICE_TOKEN_FILE, or put token= in the config file");
  }

  /**
   * The first line of a token file; {@code source} names where the path came from. A file other
   * users may read or write, or an empty one, is refused ({@link TokenFile}).
   */
  private static String readTokenFile(Path path, String source) {
    try {
      return TokenFile.read(path);
    } catch (NoSuchFileException e) {
      throw new CtlException(CtlMain.USAGE, source + ": token file not found: " + path);
    } catch (IOException e) {
      throw new CtlException(CtlMain.USAGE, source + ": " + e.getMessage());
    }
  }

  /** A value from the config file, or null. */
  String fileValue(String key) {
    if (file == null) {
      file = load();
    }
    return file.getProperty(key);
  }

  boolean colour() {
    return io.tty() && !noColor && !io.env().containsKey("NO_COLOR");
  }

  ApiClient client() {
    return new ApiClient(resolvedUrl(), resolvedToken(), resolvedCaFile());
  }

  /**
   * The PEM file of the CA to trust, or null for the JVM's trust store: {@code --ca-file}, then
   * {@code SLUICE_CA_FILE}, then the config file's {@code caFile=} (relative to that file).
   */
  Path resolvedCaFile() {
    if (caFile != null) {
      return caFile;
    }
    String env = io.env().get("SLUICE_CA_FILE");
    if (env != null && !env.isBlank()) {
      return Path.of(env.strip());
    }
    String fromFile = fileValue("caFile");
    if (fromFile == null || fromFile.isBlank()) {
      return null;
    }
    Path p = Path.of(fromFile.strip());
    return p.isAbsolute() || loadedFrom == null || loadedFrom.getParent() == null
        ? p
        : loadedFrom.getParent().resolve(p);
  }

  private Properties load() {
    Properties p = new Properties();
    Path path = config;
    boolean explicit = path != null;
    if (path == null && io.env().get("SLUICE_CTL_CONFIG") != null) {
      path = Path.of(io.env().get("SLUICE_CTL_CONFIG"));
      explicit = true;
    }
    if (path == null && io.env().get("HOME") != null) {
      path = Path.of(io.env().get("HOME"), ".config", "sluice", "ctl.properties");
    }
    if (path == null) {
      return p;
    }
    try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
      p.load(r);
      loadedFrom = path;
    } catch (NoSuchFileException e) {
      if (explicit) {
        throw new CtlException(CtlMain.USAGE, "config file not found: " + path);
      }
    } catch (IOException | IllegalArgumentException e) {
      throw new CtlException(
          CtlMain.USAGE, "cannot read config file " + path + ": " + e.getMessage());
    }
    return p;
  }

  private static String first(String a, String b, String c, String d) {
    for (String s : new String[] {a, b, c}) {
      if (s != null && !s.isBlank()) {
        return s;
      }
    }
    return d;
  }
}
