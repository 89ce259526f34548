package io.sluice.admin.rest;

import io.sluice.admin.auth.Role;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.dnssec.DnssecKeyManager;
import io.sluice.core.dnssec.DnssecKeyManager.Done;
import io.sluice.core.dnssec.DnssecKeyManager.KeyView;
import io.sluice.core.dnssec.DnssecKeyManager.NextStep;
import io.sluice.core.dnssec.DnssecKeyManager.Refused;
import io.sluice.core.dnssec.DnssecKeyManager.StepOutcome;
import io.sluice.core.dnssec.DnssecKeyManager.ZoneKeysView;
import io.sluice.core.dnssec.RolloverStep;
import io.sluice.core.traffic.CommandRules;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * DNSSEC keys: {@code GET /api/v1/keys} and {@code GET /api/v1/zones/{zone}/keys} (viewer) show
 * each signed zone's keys, their states and the DS records for the parent; {@code POST
 * /api/v1/zones/{zone}/keys/rollover} (admin) runs one rollover step, audited, or answers 409 with
 * the moment it can run.
 */
final class KeyRoutes {
  private static final String V1 = AdminServer.API_PREFIX;
  private final Supplier<DnssecKeyManager> manager;
  private final JsonBodies bodies;

  /** The body of a rollover step: the step, and a reason for the audit log. */
  record StepBody(String step, String reason) {}

  KeyRoutes(Supplier<DnssecKeyManager> manager, JsonBodies bodies) {
    this.manager = manager;
    this.bodies = bodies;
  }

  void register(Router r) {
    r.add("GET", V1 + "/keys", Role.VIEWER, req -> all());
    r.add("GET", V1 + "/zones/{zone}/keys", Role.VIEWER, this::zone);
    r.add("POST", V1 + "/zones/{zone}/keys/rollover", Role.ADMIN, this::step);
  }

  private ApiResponse all() {
    List<Object> zones = new ArrayList<>();
    for (ZoneKeysView z : manager.get().zones()) {
      zones.add(view(z));
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("zones", zones);
    return ApiResponse.ok(m);
  }

  private ZoneKeysView signed(String zone) {
    return manager
        .get()
        .zone(zone)
        .orElseThrow(
            () ->
                ApiException.notFound(
                    "zone",
                    "'"
                        + zone
                        + "' is not a signed zone (signed: "
                        + String.join(
                            ", ", manager.get().zones().stream().map(ZoneKeysView::zone).toList())
                        + ")"));
  }

  private ApiResponse zone(ApiRequest req) {
    return ApiResponse.ok(view(signed(req.pathParam("zone"))));
  }

  private ApiResponse step(ApiRequest req) {
    CommandProblems p = new CommandProblems();
    StepBody b = bodies.read(req.body(), StepBody.class, p);
    String zone = req.pathParam("zone");
    RolloverStep step =
        b.step() == null ? null : RolloverStep.of(b.step().toLowerCase(Locale.ROOT));
    if (step == null) {
      p.add(
          "step",
          (b.step() == null ? "is required" : "unknown step '" + b.step() + "'")
              + "; one of "
              + String.join(
                  ", ", Arrays.stream(RolloverStep.values()).map(RolloverStep::toString).toList()));
    }
    CommandRules.reason(p, b.reason());
    if (!p.isEmpty()) {
      throw ApiException.badRequest(p.list());
    }
    signed(zone);
    StepOutcome outcome;
    try {
      outcome = manager.get().step(req.actor(), zone, step, b.reason());
    } catch (IllegalArgumentException e) {
      throw ApiException.notFound("zone", e.getMessage());
    } catch (IOException e) {
      // On a cluster: etcd unreachable; on a single node: the key directory not writable.
      throw new ApiException(
          503, "key_store_unavailable", null, "no key changed: " + e.getMessage());
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("step", step.toString());
    if (outcome instanceof Refused r) {
      m.put("error", "too_early_or_out_of_order");
      m.put("message", r.message());
      m.put("notBefore", iso(r.notBefore()));
      return ApiResponse.json(409, m);
    }
    Done d = (Done) outcome;
    m.put("message", d.message());
    m.put("zone", view(d.zone()));
    return ApiResponse.ok(m);
  }

  static Map<String, Object> view(ZoneKeysView z) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("zone", z.zone());
    List<Object> list = new ArrayList<>();
    for (KeyView k : z.keys()) {
      Map<String, Object> v = new LinkedHashMap<>();
      v.put("tag", k.tag());
      v.put("algorithm", k.algorithm());
      v.put("algorithmName", k.algorithmName());
      v.put("role", k.role().name());
      v.put("state", k.state().name().toLowerCase(Locale.ROOT));
      v.put("created", iso(k.created()));
      v.put("publish", iso(k.publish()));
      v.put("activate", iso(k.activate()));
      v.put("inactive", iso(k.inactive()));
      v.put("delete", iso(k.delete()));
      v.put("syncPublish", iso(k.syncPublish()));
      v.put("syncDelete", iso(k.syncDelete()));
      v.put("cds", k.cds());
      v.put("ds", k.ds());
      v.put("file", k.file());
      list.add(v);
    }
    m.put("keys", list);
    m.put("ds", z.ds());
    List<Object> next = new ArrayList<>();
    for (NextStep n : z.next()) {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("step", n.step().toString());
      s.put("notBefore", iso(n.notBefore()));
      s.put("what", n.what());
      next.add(s);
    }
    m.put("next", next);
    m.put("problems", z.problems());
    return m;
  }

  private static String iso(Instant t) {
    return t == null ? null : t.toString();
  }
}
