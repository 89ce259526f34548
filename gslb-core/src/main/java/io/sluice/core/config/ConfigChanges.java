package io.sluice.core.config;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * What a reload changes, compared section by section between the running and the new configuration:
 * admin tokens by name (with their roles), zones by origin, services, pools and regions by name,
 * and which other sections differ. Reported by every reload, in its result and its audit record, so
 * an operator sees what a reload did (for example that a token was revoked).
 *
 * <p>A zone loaded from a master file is compared by its configuration entry, whose file a node
 * runs from its content-addressed copy (named by the content's SHA-256): an edit inside the file
 * therefore shows as a changed zone.
 */
public record ConfigChanges(
    Delta tokens, Delta zones, Delta services, Delta pools, Delta regions, List<String> sections) {

  /** Names added, removed and changed in one kind of entry, each in declaration order. */
  public record Delta(List<String> added, List<String> removed, List<String> changed) {
    public Delta {
      added = List.copyOf(added);
      removed = List.copyOf(removed);
      changed = List.copyOf(changed);
    }

    /** True when nothing was added, removed or changed. */
    public boolean isEmpty() {
      return added.isEmpty() && removed.isEmpty() && changed.isEmpty();
    }

    Map<String, Object> toMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("added", added);
      m.put("removed", removed);
      m.put("changed", changed);
      return m;
    }
  }

  public ConfigChanges {
    sections = List.copyOf(sections);
  }

  /** The changes that turn {@code before} into {@code after}. */
  public static ConfigChanges between(SluiceConfig before, SluiceConfig after) {
    Delta tokens =
        delta(
            before.admin().tokens(),
            after.admin().tokens(),
            AdminConfig.TokenConfig::name,
            t -> t.name() + " (" + t.role() + ")",
            ConfigChanges::tokenChange);
    // A zone counts as changed by its own data; its services are reported by name below.
    Delta zones =
        delta(
            before.zones().stream().map(ConfigChanges::withoutServices).toList(),
            after.zones().stream().map(ConfigChanges::withoutServices).toList(),
            ZoneConfig::origin,
            ZoneConfig::origin,
            (a, b) -> b.origin());
    Delta services = delta(servicesByName(before), servicesByName(after));
    Delta pools = delta(before.pools(), after.pools());
    Delta regions = delta(before.regions(), after.regions());
    List<String> sections = new ArrayList<>();
    if (!before.dns().equals(after.dns())) {
      sections.add("dns");
    }
    if (!before.admin().withTokens(List.of()).equals(after.admin().withTokens(List.of()))) {
      sections.add("admin");
    }
    if (!before.stateDir().equals(after.stateDir())) {
      sections.add("stateDir");
    }
    if (!before.topology().equals(after.topology())) {
      sections.add("topology");
    }
    if (!before.probes().equals(after.probes())) {
      sections.add("probes");
    }
    return new ConfigChanges(tokens, zones, services, pools, regions, sections);
  }

  private static ZoneConfig withoutServices(ZoneConfig z) {
    return new ZoneConfig(
        z.origin(),
        z.file(),
        z.ttl(),
        z.soa(),
        z.ns(),
        z.records(),
        List.of(),
        z.transfer(),
        z.dnssec());
  }

  private static Map<String, ServiceConfig> servicesByName(SluiceConfig c) {
    Map<String, ServiceConfig> m = new LinkedHashMap<>();
    for (ZoneConfig z : c.zones()) {
      for (ServiceConfig s : z.services()) {
        m.putIfAbsent(s.fqdn(z.origin()), s);
      }
    }
    return m;
  }

  private static String tokenChange(AdminConfig.TokenConfig a, AdminConfig.TokenConfig b) {
    if (!Objects.equals(a.role(), b.role())) {
      return b.name() + " (" + a.role() + " -> " + b.role() + ")";
    }
    if (!Objects.equals(a.sha256(), b.sha256())) {
      return b.name() + " (new hash)";
    }
    if (!Objects.equals(a.scope(), b.scope())) {
      return b.name() + " (scope " + (b.scope() == null ? "removed" : b.scope().describe()) + ")";
    }
    return b.name() + " (expires " + (b.expires() == null ? "never" : b.expires()) + ")";
  }

  private static <T> Delta delta(
      List<T> before,
      List<T> after,
      Function<T, String> key,
      Function<T, String> label,
      BiFunction<T, T, String> changeLabel) {
    Map<String, T> old = new LinkedHashMap<>();
    before.forEach(t -> old.putIfAbsent(key.apply(t), t));
    Map<String, T> next = new LinkedHashMap<>();
    after.forEach(t -> next.putIfAbsent(key.apply(t), t));
    List<String> added = new ArrayList<>();
    List<String> changed = new ArrayList<>();
    next.forEach(
        (k, t) -> {
          T was = old.get(k);
          if (was == null) {
            added.add(label.apply(t));
          } else if (!was.equals(t)) {
            changed.add(changeLabel.apply(was, t));
          }
        });
    List<String> removed = new ArrayList<>();
    old.forEach(
        (k, t) -> {
          if (!next.containsKey(k)) {
            removed.add(label.apply(t));
          }
        });
    return new Delta(added, removed, changed);
  }

  private static <T> Delta delta(Map<String, T> before, Map<String, T> after) {
    return delta(
        List.copyOf(before.entrySet()),
        List.copyOf(after.entrySet()),
        Map.Entry::getKey,
        Map.Entry::getKey,
        (a, b) -> b.getKey());
  }

  /** True when the new configuration equals the running one in every compared part. */
  public boolean isEmpty() {
    return tokens.isEmpty()
        && zones.isEmpty()
        && services.isEmpty()
        && pools.isEmpty()
        && regions.isEmpty()
        && sections.isEmpty();
  }

  /**
   * One line for people: {@code tokens added: alice (operator); tokens removed: bob (viewer);
   * services changed: www.example.com.}, or {@code no changes}.
   */
  public String summary() {
    List<String> parts = new ArrayList<>();
    describe(parts, "tokens", tokens);
    describe(parts, "zones", zones);
    describe(parts, "services", services);
    describe(parts, "pools", pools);
    describe(parts, "regions", regions);
    if (!sections.isEmpty()) {
      parts.add("settings changed: " + String.join(", ", sections));
    }
    return parts.isEmpty() ? "no changes" : String.join("; ", parts);
  }

  private static void describe(List<String> parts, String what, Delta d) {
    if (!d.added.isEmpty()) {
      parts.add(what + " added: " + String.join(", ", d.added));
    }
    if (!d.removed.isEmpty()) {
      parts.add(what + " removed: " + String.join(", ", d.removed));
    }
    if (!d.changed.isEmpty()) {
      parts.add(what + " changed: " + String.join(", ", d.changed));
    }
  }

  /** The changes as plain maps and lists, for the API response and the audit record. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("tokens", tokens.toMap());
    m.put("zones", zones.toMap());
    m.put("services", services.toMap());
    m.put("pools", pools.toMap());
    m.put("regions", regions.toMap());
    m.put("settings", sections);
    return m;
  }
}
