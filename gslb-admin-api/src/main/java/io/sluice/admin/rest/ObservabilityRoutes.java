package io.sluice.admin.rest;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import io.sluice.admin.auth.Role;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.ShadowConfig;
import io.sluice.core.config.ZoneConfig;
import io.sluice.core.config.history.ConfigVersion;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.ConfigCommands;
import io.sluice.core.history.PastStates;
import io.sluice.core.spi.AddressFamily;
import io.sluice.core.spi.ClientInfo;
import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.spi.ShadowReporter;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.core.traffic.CommandRules;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * The routes that look at answers beside and after serving them: a service's shadow chain (its
 * report, setting or removing it, promoting it) and {@code why} (the explanation on the state in
 * force at an earlier time). Setting, removing and promoting a shadow are configuration changes:
 * the current version with that service's {@code shadow}/{@code chain} edited, pushed through the
 * node's {@link ConfigCommands} like {@code config push} (validated, audited, a new version, shared
 * by a cluster).
 */
final class ObservabilityRoutes {
  private static final String V1 = AdminServer.API_PREFIX;
  // Every string quoted: a value such as "yes", "0x1f" or "::1" must come back as the same string.
  private static final ObjectMapper YAML =
      new ObjectMapper(new YAMLFactory().disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER));

  private final SnapshotStore store;
  private final ShadowReporter shadows;
  private final PastStates past;
  private final DecisionExplainer explainer;
  private final Supplier<ConfigCommands> commands;
  private final JsonBodies bodies;

  record ShadowBody(List<String> chain, Double sample, String reason) {}

  ObservabilityRoutes(
      SnapshotStore store,
      ShadowReporter shadows,
      PastStates past,
      DecisionExplainer explainer,
      Supplier<ConfigCommands> commands,
      JsonBodies bodies) {
    this.store = store;
    this.shadows = shadows;
    this.past = past;
    this.explainer = explainer;
    this.commands = commands;
    this.bodies = bodies;
  }

  void register(Router r) {
    r.add("GET", V1 + "/shadow/{service}", Role.VIEWER, this::report);
    r.add("PUT", V1 + "/shadow/{service}", Role.OPERATOR, this::set);
    r.add("DELETE", V1 + "/shadow/{service}", Role.OPERATOR, this::remove);
    r.add("POST", V1 + "/shadow/{service}/promote", Role.OPERATOR, this::promote);
    r.add("GET", V1 + "/why", Role.VIEWER, this::why);
  }

  private ApiResponse report(ApiRequest req) {
    Snapshot s = store.current();
    String fq = StateViews.service(s, req.pathParam("service"), "service");
    ServiceConfig svc = StateViews.serviceConfig(s, fq);
    if (svc.shadow() == null) {
      throw ApiException.notFound("service", "service '" + fq + "' has no shadow chain");
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("service", fq);
    m.put("chain", svc.chain());
    m.put("candidate", svc.shadow().chain());
    m.put("sample", svc.shadow().sample());
    shadows
        .shadow(fq)
        .ifPresentOrElse(
            rep -> {
              m.put("since", Instant.ofEpochMilli(rep.sinceMillis()).toString());
              m.put("all", rep.all());
              m.put("regions", rep.regions());
              m.put("dropped", rep.dropped());
            },
            () -> {
              m.put("since", null);
              m.put("all", new ShadowReporter.RegionReport("all", 0, 0, 0, 0, 0, 0, 0));
              m.put("regions", List.of());
              m.put("dropped", 0);
            });
    m.put("snapshotVersion", s.version());
    return ApiResponse.ok(m);
  }

  private ApiResponse set(ApiRequest req) throws IOException {
    CommandProblems p = new CommandProblems();
    ShadowBody b = bodies.read(req.body(), ShadowBody.class, p);
    if (b.chain() == null || b.chain().isEmpty()) {
      p.add("chain", "is required: the candidate chain's steps, as in the service's chain");
    }
    if (b.sample() != null && !(b.sample() > 0 && b.sample() <= 1)) {
      p.add("sample", "must be more than 0 and at most 1, was " + b.sample());
    }
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    return edit(
        req,
        b.reason(),
        "set the shadow chain of",
        (svc, node) -> {
          ObjectNode shadow = node.putObject("shadow");
          ArrayNode chain = shadow.putArray("chain");
          b.chain().forEach(chain::add);
          shadow.put("sample", b.sample() == null ? ShadowConfig.DEFAULT_SAMPLE : b.sample());
        });
  }

  private ApiResponse remove(ApiRequest req) throws IOException {
    CommandProblems p = new CommandProblems();
    CommandRoutes.ChangeBody b = bodies.read(req.body(), CommandRoutes.ChangeBody.class, p);
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    return edit(req, b.reason(), "removed the shadow chain of", (svc, node) -> shadowOf(svc));
  }

  private ApiResponse promote(ApiRequest req) throws IOException {
    CommandProblems p = new CommandProblems();
    CommandRoutes.ChangeBody b = bodies.read(req.body(), CommandRoutes.ChangeBody.class, p);
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    return edit(
        req,
        b.reason(),
        "promoted the shadow chain of",
        (svc, node) -> {
          ArrayNode chain = node.putArray("chain");
          shadowOf(svc).chain().forEach(chain::add);
        });
  }

  private static ShadowConfig shadowOf(ServiceConfig svc) {
    if (svc.shadow() == null) {
      throw new ApiException(
          409, "no_shadow", "service", "service '" + svc.name() + "' has no shadow chain");
    }
    return svc.shadow();
  }

  /** Changes one service's YAML mapping in the current version. */
  @FunctionalInterface
  private interface ServiceEdit {
    void apply(ServiceConfig svc, ObjectNode node);
  }

  /**
   * Pushes the current configuration version with {@code edit} applied to the service's mapping
   * (the shadow is removed by every edit but setting one): one validated, audited version.
   */
  private ApiResponse edit(ApiRequest req, String reason, String what, ServiceEdit edit)
      throws IOException {
    ConfigCommands cc = commands.get();
    if (cc == null) {
      throw new ApiException(
          409, "no_config_history", null, "this node keeps no configuration versions");
    }
    Snapshot s = store.current();
    String fq = StateViews.service(s, req.pathParam("service"), "service");
    int[] at = locate(s, fq);
    ServiceConfig svc = s.config().zones().get(at[0]).services().get(at[1]);
    ConfigCommands.History h = cc.history();
    ConfigVersion current =
        cc.version(h.current())
            .orElseThrow(
                () ->
                    new ApiException(
                        409,
                        "no_config_history",
                        null,
                        "no configuration version is recorded yet"));
    JsonNode root = YAML.readTree(current.yaml());
    JsonNode node = root.path("zones").path(at[0]).path("services").path(at[1]);
    if (!(node instanceof ObjectNode service)) {
      throw new ApiException(
          409,
          "conflict",
          "service",
          "configuration version " + current.version() + " does not hold '" + fq + "' as served");
    }
    service.remove("shadow");
    edit.apply(svc, service);
    String yaml = YAML.writeValueAsString(root);
    String why = what + " " + fq + (reason == null || reason.isBlank() ? "" : ": " + reason);
    try {
      return CommandRoutes.result(cc.push(req.actor(), yaml, current.files(), why));
    } catch (ConfigException e) {
      return SystemRoutes.invalid(e, store);
    } catch (ConfigCommands.RoleRequired e) {
      throw new ApiException(403, "forbidden", null, e.getMessage());
    }
  }

  /** The zone and service indexes of {@code fq} in the configuration served. */
  private static int[] locate(Snapshot s, String fq) {
    List<ZoneConfig> zones = s.config().zones();
    for (int z = 0; z < zones.size(); z++) {
      List<ServiceConfig> services = zones.get(z).services();
      for (int i = 0; i < services.size(); i++) {
        if (services.get(i).fqdn(zones.get(z).origin()).equals(fq)) {
          return new int[] {z, i};
        }
      }
    }
    throw ApiException.notFound("service", "no service '" + fq + "'");
  }

  private ApiResponse why(ApiRequest req) throws IOException {
    Snapshot now = store.current();
    String fq = StateViews.service(now, req.requiredQueryParam("service"), "service");
    ClientInfo client = ReadRoutes.client(req.requiredQueryParam("client"));
    AddressFamily family = ReadRoutes.family(req.queryParam("type"));
    long at = time(req.requiredQueryParam("at"));
    PastStates.PastState state;
    try {
      state =
          past.at(at)
              .orElseThrow(
                  () ->
                      ApiException.notFound(
                          "at",
                          "the history does not reach back to "
                              + Instant.ofEpochMilli(at)
                              + " (see observability.history)"));
    } catch (ConfigException e) {
      throw new ApiException(
          409, "config_unavailable", "at", "the configuration in force then: " + e.getMessage());
    }
    // A service the configuration of that time did not have is "not found" too.
    StateViews.serviceConfig(state.snapshot(), fq);
    Map<String, Object> m =
        ReadRoutes.explanation(explainer.explain(state.snapshot(), fq, family, client), family);
    m.put("at", Instant.ofEpochMilli(at).toString());
    m.put("stateSince", Instant.ofEpochMilli(state.sinceMillis()).toString());
    m.put("snapshotVersion", state.snapshotVersion());
    m.put("configVersion", state.configVersion());
    return ApiResponse.ok(m);
  }

  /** An RFC 3339 time ({@code 2026-05-04T14:02:00Z}) or epoch milliseconds. */
  private static long time(String text) {
    try {
      return Instant.parse(text).toEpochMilli();
    } catch (DateTimeParseException e) {
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException n) {
        throw ApiException.badRequest(
            "at",
            "must be an RFC 3339 time such as 2026-05-04T14:02:00Z (UTC) or epoch milliseconds,"
                + " was '"
                + text
                + "'");
      }
    }
  }
}
