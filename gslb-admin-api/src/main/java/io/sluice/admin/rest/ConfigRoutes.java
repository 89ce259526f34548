package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.history.ConfigStore;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.config.history.UnifiedDiff;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ConfigCommands;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;

/**
 * The configuration history routes under {@code /api/v1/config/}: upload of referenced files, push,
 * rollback (operator), history, one version and the diff of two (viewer). Push and rollback go
 * through the node's {@link ConfigCommands}, the one path every configuration change takes.
 */
final class ConfigRoutes {
  private static final String CONFIG = AdminServer.API_PREFIX + "/config";

  private final SnapshotStore store;
  private final ConfigCommands commands;
  private final JsonBodies bodies;
  private final int maxPartBytes;

  record PushBody(String yaml, String yamlSha256, Map<String, String> files, String reason) {}

  record RollbackBody(Long version, String reason) {}

  ConfigRoutes(SnapshotStore store, ConfigCommands commands, JsonBodies bodies, int maxBodyBytes) {
    this.store = store;
    this.commands = commands;
    this.bodies = bodies;
    this.maxPartBytes = maxBodyBytes;
  }

  void register(Router r) {
    r.add("GET", CONFIG + "/versions", Role.VIEWER, req -> history());
    r.add("GET", CONFIG + "/versions/{version}", Role.VIEWER, this::version);
    r.add("GET", CONFIG + "/diff", Role.VIEWER, this::diff);
    r.add("GET", CONFIG + "/blobs/{sha256}", Role.OPERATOR, this::blob);
    r.add("PUT", CONFIG + "/blobs/{sha256}", Role.OPERATOR, this::upload);
    r.add("POST", CONFIG + "/push", Role.OPERATOR, this::push);
    r.add("POST", CONFIG + "/rollback", Role.OPERATOR, this::rollback);
  }

  private ApiResponse history() throws IOException {
    ConfigCommands.History h = commands.history();
    List<Map<String, Object>> out = new ArrayList<>();
    for (ConfigVersion v : h.versions()) {
      out.add(view(v, h.current(), false));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("current", h.current());
    m.put("applied", h.applied());
    m.put("versions", out);
    return ApiResponse.ok(m);
  }

  private ApiResponse version(ApiRequest req) throws IOException {
    long n = number(req.pathParam("version"), "version");
    return ApiResponse.ok(view(find(n, "version"), commands.history().current(), true));
  }

  private ApiResponse diff(ApiRequest req) throws IOException {
    ConfigCommands.History h = commands.history();
    Long toParam = req.longParam("to", 1, Long.MAX_VALUE);
    long to = toParam == null ? h.current() : toParam;
    if (to == 0) {
      throw ApiException.notFound("to", "no configuration version was recorded yet");
    }
    Long fromParam = req.longParam("from", 1, Long.MAX_VALUE);
    long from;
    if (fromParam != null) {
      from = fromParam;
    } else {
      // The version before: the highest kept number below.
      from =
          h.versions().stream()
              .mapToLong(ConfigVersion::version)
              .filter(x -> x < to)
              .max()
              .orElseThrow(
                  () -> ApiException.notFound("from", "no kept version before version " + to));
    }
    ConfigVersion a = find(from, "from");
    ConfigVersion b = find(to, "to");
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("from", from);
    m.put("to", to);
    m.put("diff", UnifiedDiff.of("version " + from, a.yaml(), "version " + to, b.yaml()));
    Map<String, Object> files = new LinkedHashMap<>();
    for (String path : union(a.files().keySet(), b.files().keySet())) {
      String x = a.files().get(path);
      String y = b.files().get(path);
      if (x == null || !x.equals(y)) {
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("from", x);
        f.put("to", y);
        files.put(path, f);
      }
    }
    m.put("files", files);
    return ApiResponse.ok(m);
  }

  private static List<String> union(java.util.Set<String> a, java.util.Set<String> b) {
    java.util.TreeSet<String> all = new java.util.TreeSet<>(a);
    all.addAll(b);
    return new ArrayList<>(all);
  }

  private ApiResponse blob(ApiRequest req) throws IOException {
    String sha = sha(req);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sha256", sha);
    // Held content a push is about to name is kept from pruning as if just uploaded.
    m.put("held", commands.blobs().hold(sha));
    m.put("maxPartBytes", maxPartBytes);
    return ApiResponse.ok(m);
  }

  private ApiResponse upload(ApiRequest req) throws IOException {
    String sha = sha(req);
    Long offset = req.longParam("offset", 0, Long.MAX_VALUE);
    Long size = req.longParam("size", 0, Long.MAX_VALUE);
    if (size == null) {
      throw ApiException.badRequest("size", "is required: the whole file's size in bytes");
    }
    long received;
    try {
      received = commands.blobs().receive(sha, offset == null ? 0 : offset, size, req.body());
    } catch (IllegalArgumentException e) {
      String m = e.getMessage();
      throw ApiException.badRequest(
          m.startsWith("offset") ? "offset" : m.startsWith("the part") ? "size" : "sha256", m);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sha256", sha);
    m.put("received", received);
    m.put("complete", received == size);
    return ApiResponse.ok(m);
  }

  private ApiResponse push(ApiRequest req) throws IOException {
    CommandProblems p = new CommandProblems();
    PushBody b = bodies.read(req.body(), PushBody.class, p);
    String yaml = b.yaml();
    if (yaml == null && b.yamlSha256() != null) {
      // A file too large for one request body is uploaded like the files it references.
      if (!commands.blobs().has(b.yamlSha256())) {
        p.add("yamlSha256", "no uploaded file has this SHA-256");
      } else {
        yaml = java.nio.file.Files.readString(commands.blobs().path(b.yamlSha256()));
      }
    } else if (yaml == null || yaml.isBlank()) {
      p.add("yaml", "is required: the configuration file's text (or yamlSha256 of its upload)");
    }
    Map<String, String> files = b.files() == null ? Map.of() : b.files();
    files.forEach(
        (path, sha) -> {
          if (!ConfigVersion.isSha256(sha)) {
            p.add("files." + path, "must be the lowercase hex SHA-256 of the uploaded file");
          }
        });
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    String text = yaml;
    return change(() -> commands.push(req.actor(), text, files, reasonOf(b.reason())));
  }

  private ApiResponse rollback(ApiRequest req) throws IOException {
    CommandProblems p = new CommandProblems();
    RollbackBody b = bodies.read(req.body(), RollbackBody.class, p);
    if (b.version() == null) {
      p.add("version", "is required: the number of a kept version (see config history)");
    } else if (b.version() < 1) {
      p.add("version", "must be at least 1, was " + b.version());
    }
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    return change(() -> commands.rollback(req.actor(), b.version(), reasonOf(b.reason())));
  }

  @FunctionalInterface
  private interface Change {
    CommandResult run() throws ConfigException, IOException;
  }

  /** Runs a push or rollback; a rejected configuration answers 400 with every problem. */
  private ApiResponse change(Change c) throws IOException {
    try {
      return CommandRoutes.result(c.run());
    } catch (ConfigException e) {
      return SystemRoutes.invalid(e, store);
    } catch (NoSuchElementException e) {
      throw ApiException.notFound("version", e.getMessage());
    } catch (ConfigCommands.RoleRequired e) {
      throw new ApiException(403, "forbidden", null, e.getMessage());
    } catch (ConfigStore.Conflict e) {
      throw new ApiException(
          409,
          "conflict",
          null,
          "another configuration version was applied first: " + e.getMessage() + "; retry");
    } catch (IOException e) {
      throw new ApiException(
          503,
          "config_store_unavailable",
          null,
          "the configuration store is unavailable, nothing was applied: " + e.getMessage());
    }
  }

  private ConfigVersion find(long n, String field) throws IOException {
    return commands
        .version(n)
        .orElseThrow(
            () -> ApiException.notFound(field, "configuration version " + n + " is not kept"));
  }

  private static long number(String s, String field) {
    try {
      long n = Long.parseLong(s);
      if (n >= 1) {
        return n;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw ApiException.badRequest(field, "must be a version number (1 or more), was '" + s + "'");
  }

  private static String sha(ApiRequest req) {
    String sha = req.pathParam("sha256");
    if (!ConfigVersion.isSha256(sha)) {
      throw ApiException.badRequest("sha256", "must be a lowercase hex SHA-256, was '" + sha + "'");
    }
    return sha;
  }

  private static String reasonOf(String reason) {
    return reason == null ? "" : reason;
  }

  /** One version as the API shows it; with {@code yaml}, its text too. */
  static Map<String, Object> view(ConfigVersion v, long current, boolean yaml) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("version", v.version());
    m.put("current", v.version() == current);
    m.put("sha256", v.sha256());
    m.put("source", v.source().label());
    m.put("actor", v.actor());
    m.put("role", v.role());
    m.put("reason", v.reason());
    m.put("time", Instant.ofEpochMilli(v.timeMillis()).toString());
    m.put("restores", v.restores());
    m.put("files", v.files());
    if (yaml) {
      m.put("yaml", v.yaml());
    }
    return m;
  }
}
