package io.sluice.policy;

import io.sluice.core.spi.DecisionExplainer;
import io.sluice.core.state.Shift;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs the pool-level part of a chain in its fixed order: red lines (healthy, residency), then
 * fail-open or last resort when they leave nothing, then the traffic plan's shifts, then the
 * cross-region limit, then the preference selectors. The balancing step and the handout limit are
 * applied afterwards, per client, from the {@link Spread} built on this result.
 */
final class ChainEvaluator {
  private ChainEvaluator() {}

  static ChainResult evaluate(
      CompiledService svc, ServiceState live, int family, int bucket, ChainContext ctx) {
    boolean trace = ctx.tracing();
    List<DecisionExplainer.Step> steps = trace ? new ArrayList<>() : null;
    List<String> events = new ArrayList<>(2);
    PoolTable t = svc.pools();
    long all = t.all();
    long usable = live.usable(family);
    long cand = all;
    long allowed = all;
    for (CompiledStep st : svc.steps()) {
      long in = cand;
      switch (st.kind()) {
        case HEALTHY -> {
          cand &= usable;
          if (trace && cand != in) {
            ctx.note(
                "down, drained or without an "
                    + familyName(family)
                    + " endpoint: "
                    + t.names(in & ~cand));
          }
        }
        case RESIDENCY -> {
          long a = st.residency().allowed(ctx.region(), all);
          cand &= a;
          allowed &= a;
          if (trace) {
            ctx.note(
                a == all
                    ? "rule does not bind clients of " + ctx.regions().name(ctx.region())
                    : "clients of "
                        + ctx.regions().name(ctx.region())
                        + " may only get "
                        + t.names(a));
          }
        }
        default -> {
          continue;
        }
      }
      if (trace) {
        steps.add(step(st.text(), in, cand, t, ctx));
      }
    }
    boolean failOpen = false;
    if (cand == 0) {
      if (allowed == 0) {
        return lastResort(svc, "residency-last-resort", "residency leaves no pool", steps, events);
      }
      if ((allowed & live.withFamily(family)) == 0) {
        // No pool the client may get has an address of this family at all: that is "no data"
        // (NODATA), not an outage, so neither fail-open nor the last resort applies.
        if (trace) {
          steps.add(
              new DecisionExplainer.Step(
                  "no-data",
                  List.of(),
                  List.of(),
                  "no pool has an " + familyName(family) + " endpoint: NODATA, not an outage"));
        }
        return new ChainResult(0, false, false, steps, events);
      }
      if (!svc.config().failOpen()) {
        return lastResort(
            svc, "fail-closed", "no usable pool and the service fails closed", steps, events);
      }
      // A drain is the operator's decision: failing open may bring back down pools, never
      // drained ones. When only drained pools are left, the last resort answers.
      cand = allowed & live.openable(family);
      if (cand == 0) {
        return lastResort(
            svc, "drained-last-resort", "every pool the red lines allow is drained", steps, events);
      }
      failOpen = true;
      events.add("fail-open");
      if (trace) {
        steps.add(
            new DecisionExplainer.Step(
                "fail-open",
                List.of(),
                t.names(cand),
                "no usable pool: answering from every pool the red lines allow that is not drained"));
      }
    }
    ctx.redLine(cand);
    String clientRegion =
        ctx.region() < ctx.regions().size() ? ctx.regions().name(ctx.region()) : null;
    for (Shift s : live.plan().shifts()) {
      if (!s.covers(clientRegion)) {
        if (trace && s.moves(bucket)) {
          steps.add(
              new DecisionExplainer.Step(
                  "shift(" + s.id() + ")",
                  t.names(cand),
                  t.names(cand),
                  "moves only clients of region "
                      + s.region()
                      + "; this client maps to "
                      + ctx.regions().name(ctx.region())));
        }
        continue;
      }
      if (!s.moves(bucket)) {
        continue;
      }
      long to = live.mask(s.to());
      long from = live.mask(s.from());
      long in = cand;
      if (!failOpen && (cand & to) != 0) {
        cand &= ~from;
      }
      if (trace) {
        steps.add(
            new DecisionExplainer.Step(
                "shift(" + s.id() + ")",
                t.names(in),
                t.names(cand),
                "bucket "
                    + bucket
                    + " is moved at "
                    + s.percent()
                    + "%"
                    + ((in & to) == 0 ? ", but no 'to' pool is usable: kept" : "")));
      }
    }
    Integer limit = svc.config().crossRegionLimit();
    if (limit != null && ctx.region() < ctx.regions().size()) {
      long own = ctx.inRegion(cand, ctx.region());
      long in = cand;
      boolean mayLeave = bucket < limit * 100;
      if (own != 0 && !mayLeave) {
        cand = own;
      }
      if (trace) {
        steps.add(
            new DecisionExplainer.Step(
                "cross-region-limit",
                t.names(in),
                t.names(cand),
                own == 0
                    ? "no usable pool in the client's region: may leave it"
                    : mayLeave
                        ? "bucket "
                            + bucket
                            + " is within the "
                            + limit
                            + "% that may leave the region"
                        : "bucket "
                            + bucket
                            + " is beyond the "
                            + limit
                            + "% that may leave the region"));
      }
      ctx.redLine(cand);
    }
    for (CompiledStep st : svc.steps()) {
      if (st.kind() != CompiledStep.Kind.SELECT) {
        continue;
      }
      long in = cand;
      cand = st.selector().select(cand, ctx);
      if (trace) {
        steps.add(step(st.text(), in, cand, t, ctx));
      }
    }
    return new ChainResult(cand, failOpen, false, steps, events);
  }

  /** The last resort answers: counts {@code event} and, when tracing, says {@code why}. */
  private static ChainResult lastResort(
      CompiledService svc,
      String event,
      String why,
      List<DecisionExplainer.Step> steps,
      List<String> events) {
    events.add(event);
    if (steps != null) {
      steps.add(
          new DecisionExplainer.Step(
              "last-resort",
              List.of(),
              List.of(),
              why + ": " + svc.config().lastResort().action()));
    }
    return new ChainResult(0, false, true, steps, events);
  }

  private static DecisionExplainer.Step step(
      String name, long in, long out, PoolTable t, ChainContext ctx) {
    String note = ctx.drainNotes();
    if (note.isEmpty()) {
      note = in == out ? "kept every candidate" : "dropped " + t.names(in & ~out);
    }
    return new DecisionExplainer.Step(name, t.names(in), t.names(out), note);
  }

  private static String familyName(int family) {
    return family == 0 ? "IPv4" : "IPv6";
  }
}
