package io.sluice.core.traffic;

import io.sluice.core.config.Addresses;
import io.sluice.core.config.PoolConfig;
import io.sluice.core.config.ServiceConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.CommandProblems;
import io.sluice.core.control.MaintenanceKind;
import io.sluice.core.control.MaintenanceRequest;
import io.sluice.core.health.PoolLoadFeed;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * The rules of the operator commands' arguments, in one place: the admin API checks a request body
 * with them (answering 400) and the traffic controller checks every command with them again, so the
 * two can never disagree. Each rule adds every problem it finds to {@link CommandProblems}, naming
 * the request field, so one rejection lists all of them.
 */
public final class CommandRules {
  /** A drill moves at most this share of clients: drills are small by design. */
  public static final double MAX_DRILL_PERCENT = 50;

  /** The longest time box of a drill, in seconds. */
  public static final long MAX_DRILL_SECONDS = 86_400;

  /** The largest weight of a pool. */
  public static final int MAX_WEIGHT = 65_535;

  /** The longest reason recorded in the audit log. */
  public static final int MAX_REASON = 1000;

  /** The longest maintenance window, in seconds (a week). */
  public static final long MAX_MAINTENANCE_SECONDS = 7 * 86_400;

  /** How far ahead a maintenance window may be scheduled, in days. */
  public static final long MAX_MAINTENANCE_AHEAD_DAYS = 366;

  private static final Pattern MEMBER_NAME = Pattern.compile("[A-Za-z0-9._-]{1,63}");

  private static final Pattern REQUEST_ID = Pattern.compile("[A-Za-z0-9._:-]{1,128}");

  private CommandRules() {}

  /** The pool names of a service, for the checks below. */
  public static Set<String> pools(ServiceConfig cfg) {
    return PlanProjection.poolNames(cfg);
  }

  /** What every command may carry: a reason of at most {@value #MAX_REASON} characters. */
  public static void reason(CommandProblems p, String reason) {
    if (reason != null && reason.length() > MAX_REASON) {
      p.add("reason", "must be at most " + MAX_REASON + " characters, was " + reason.length());
    }
  }

  /** An optional request id: 1..128 letters, digits and {@code . _ : -}. */
  public static void requestId(CommandProblems p, String requestId) {
    if (requestId != null && !REQUEST_ID.matcher(requestId).matches()) {
      p.add("requestId", "must be 1..128 characters of letters, digits and . _ : -");
    }
  }

  /** Immediate or ramped weights: at least one, each a pool of the service, 0..65535. */
  public static void weights(
      CommandProblems p, String service, Set<String> pools, Map<String, Integer> weights) {
    if (weights == null || weights.isEmpty()) {
      p.add("weights", "at least one pool weight is required");
      return;
    }
    for (Map.Entry<String, Integer> e : weights.entrySet()) {
      String f = "weights." + e.getKey();
      if (!pools.contains(e.getKey())) {
        p.add(
            f, "pool '" + e.getKey() + "' is not a pool of " + service + " (pools: " + pools + ")");
      }
      if (e.getValue() == null || e.getValue() < 0 || e.getValue() > MAX_WEIGHT) {
        p.add(f, "must be 0.." + MAX_WEIGHT + ", was " + e.getValue());
      }
    }
  }

  /**
   * A planned move: {@code from} and {@code to} pools of the service, disjoint; {@code steps}
   * (empty: the configured ones) rising within 1..100 and ending at 100; {@code region} one of the
   * configured regions or null.
   */
  public static void move(
      CommandProblems p,
      String service,
      Set<String> pools,
      Set<String> regions,
      List<String> from,
      List<String> to,
      List<Integer> steps,
      String region) {
    pools(p, "from", from, pools, service);
    pools(p, "to", to, pools, service);
    if (from != null && to != null) {
      for (int i = 0; i < to.size(); i++) {
        if (to.get(i) != null && from.contains(to.get(i))) {
          p.add("to[" + i + "]", "pool '" + to.get(i) + "' is also in from");
        }
      }
    }
    if (steps != null && !steps.isEmpty()) {
      steps(p, steps);
    }
    if (region != null && !regions.contains(region)) {
      p.add("region", "unknown region '" + region + "' (known: " + regions + ")");
    }
  }

  /**
   * A drill: {@code to} pools of the service leaving at least one outside, {@code percent} above 0
   * and at most {@value #MAX_DRILL_PERCENT}, {@code seconds} 1..{@value #MAX_DRILL_SECONDS}.
   */
  public static void drill(
      CommandProblems p,
      String service,
      Set<String> pools,
      List<String> to,
      Double percent,
      Long seconds) {
    pools(p, "to", to, pools, service);
    if (to != null && !to.isEmpty() && pools.stream().allMatch(to::contains)) {
      p.add("to", "a drill needs at least one pool of " + service + " left outside 'to'");
    }
    if (percent == null) {
      p.add("percent", "is required");
    } else if (percent.isNaN() || percent <= 0 || percent > MAX_DRILL_PERCENT) {
      p.add(
          "percent",
          "must be above 0 and at most "
              + (int) MAX_DRILL_PERCENT
              + " (drills are small), was "
              + percent);
    }
    if (seconds == null) {
      p.add("seconds", "is required");
    } else if (seconds < 1 || seconds > MAX_DRILL_SECONDS) {
      p.add("seconds", "must be 1.." + MAX_DRILL_SECONDS + ", was " + seconds);
    }
  }

  /** Ramp steps: each 1..100 and greater than the one before, the last one 100. */
  public static void steps(CommandProblems p, List<Integer> steps) {
    if (steps == null || steps.isEmpty()) {
      p.add("steps", "at least one step is required");
      return;
    }
    Integer prev = null;
    for (int i = 0; i < steps.size(); i++) {
      Integer s = steps.get(i);
      String f = "steps[" + i + "]";
      if (s == null || s < 1 || s > 100) {
        p.add(f, "must be 1..100, was " + s);
      } else if (prev != null && s <= prev) {
        p.add(f, "must be greater than the step before (" + prev + "), was " + s);
      }
      if (s != null) {
        prev = s;
      }
    }
    if (!Integer.valueOf(100).equals(steps.get(steps.size() - 1))) {
      p.add("steps", "the last step must be 100");
    }
  }

  /** A drain target: a pool of the configuration, or {@code pool/endpoint} of one. */
  public static void drainTarget(CommandProblems p, SluiceConfig config, String target) {
    if (target == null || target.isBlank()) {
      p.add("target", "is required: a pool name or pool/endpoint");
      return;
    }
    int slash = target.indexOf('/');
    String pool = slash < 0 ? target : target.substring(0, slash);
    PoolConfig pc = config.pools().get(pool);
    if (pc == null) {
      p.add("target", "unknown pool '" + pool + "' (pools: " + config.pools().keySet() + ")");
    } else if (slash >= 0
        && pc.endpoints().stream().noneMatch(e -> PoolConfig.endpointKey(pool, e).equals(target))) {
      p.add("target", "pool '" + pool + "' has no endpoint '" + target.substring(slash + 1) + "'");
    }
  }

  /**
   * A maintenance window: a {@code kind}, a target of that kind (see {@link #drainTarget} for a
   * drain; a move names a service and takes the {@link #move} pool rules), a start that is not in
   * the past (null: now) and at most {@value #MAX_MAINTENANCE_AHEAD_DAYS} days ahead, and a
   * duration of 1..{@value #MAX_MAINTENANCE_SECONDS} seconds.
   */
  public static void maintenance(
      CommandProblems p, SluiceConfig config, MaintenanceRequest w, long now) {
    if (w.kind() == null) {
      p.add("kind", "is required: drain or move");
    } else {
      Maintenance.target(p, config, w.kind(), w.target(), w.from(), w.to());
    }
    if (w.startMillis() != null) {
      if (w.startMillis() < now) {
        p.add(
            "start",
            "is in the past ("
                + Instant.ofEpochMilli(w.startMillis())
                + ", now "
                + Instant.ofEpochMilli(now)
                + "); leave it out to start now");
      } else if (w.startMillis() - now > MAX_MAINTENANCE_AHEAD_DAYS * 86_400_000L) {
        p.add(
            "start",
            "must be at most "
                + MAX_MAINTENANCE_AHEAD_DAYS
                + " days ahead, was "
                + Instant.ofEpochMilli(w.startMillis()));
      }
    }
    if (w.durationSeconds() == null) {
      p.add("duration", "is required");
    } else if (w.durationSeconds() < 1 || w.durationSeconds() > MAX_MAINTENANCE_SECONDS) {
      p.add(
          "duration",
          "must be 1 s.."
              + MAX_MAINTENANCE_SECONDS / 86_400
              + " days, was "
              + w.durationSeconds()
              + " s");
    }
  }

  /** The kind named {@code label}; adds a problem and returns null when it names none. */
  public static MaintenanceKind maintenanceKind(CommandProblems p, String label) {
    if (label == null) {
      return null; // reported by maintenance() as missing
    }
    MaintenanceKind k = MaintenanceKind.of(label);
    if (k == null) {
      p.add("kind", "must be one of drain, move; was '" + label + "'");
    }
    return k;
  }

  /**
   * A dynamic member of a pool (added or re-weighted through the API): a pool of the configuration,
   * a name of 1..63 letters, digits and {@code . _ -} that is not an endpoint of the configuration
   * file ({@code fileEndpoints}: the pool's endpoints the file declares), an IP address, and a
   * weight of 0..{@value #MAX_WEIGHT} (null: 1), the rules of a configured endpoint.
   */
  public static void member(
      CommandProblems p,
      SluiceConfig config,
      String pool,
      Set<String> fileEndpoints,
      String name,
      String address,
      Integer weight) {
    if (pool == null || !config.pools().containsKey(pool)) {
      p.add("pool", "unknown pool '" + pool + "' (pools: " + config.pools().keySet() + ")");
    }
    if (name == null || !MEMBER_NAME.matcher(name).matches()) {
      p.add("name", "must be 1..63 letters, digits and . _ -, was '" + name + "'");
    } else if (fileEndpoints.contains(name)) {
      p.add(
          "name",
          "'"
              + name
              + "' is an endpoint of pool '"
              + pool
              + "' in the configuration file; only members added through the API change here");
    }
    if (address == null) {
      p.add("address", "is required");
    } else if (!Addresses.isLiteral(address)) {
      p.add("address", "must be an IP address, was '" + address + "'");
    }
    if (weight != null && (weight < 0 || weight > MAX_WEIGHT)) {
      p.add("weight", "must be 0.." + MAX_WEIGHT + ", was " + weight);
    }
  }

  /** A pushed pool load: the rule of {@link PoolLoadFeed}, which applies it again. */
  public static void load(CommandProblems p, Double load) {
    PoolLoadFeed.loadRule(p, load);
  }

  private static void pools(
      CommandProblems p, String field, List<String> given, Set<String> known, String service) {
    if (given == null || given.isEmpty()) {
      p.add(field, "at least one pool is required");
      return;
    }
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < given.size(); i++) {
      String pool = given.get(i);
      if (pool == null || !known.contains(pool)) {
        p.add(
            field + "[" + i + "]",
            "'" + pool + "' is not a pool of " + service + " (pools: " + known + ")");
      } else if (!seen.add(pool)) {
        p.add(field + "[" + i + "]", "pool '" + pool + "' is listed twice");
      }
    }
  }
}
