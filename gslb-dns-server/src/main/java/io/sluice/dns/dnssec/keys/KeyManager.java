package io.sluice.dns.dnssec.keys;

import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.dnssec.DnssecKeyManager;
import io.sluice.core.dnssec.RolloverStep;
import io.sluice.core.spi.KeyFileExchange;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.xbill.DNS.Name;
import org.xbill.DNS.TextParseException;

/**
 * The admin API's access to the keys of a {@link KeyDirectory}: views, and rollover steps that
 * write the new timing into the key files (so it survives restarts), reload the zone's keys (the
 * signer hears of it) and audit who ran which step, when and why.
 */
public final class KeyManager implements DnssecKeyManager {
  private final KeyDirectory directory;
  private final AuditSink audit;
  private final KeyStore store;

  /** Where a step's keys go: the key directory on a single node, etcd on a cluster. */
  @FunctionalInterface
  public interface KeyStore {
    /** Writes {@code keys} (new or changed) of {@code setup}'s zone, all or none. */
    void write(KeyDirectory.ZoneSetup setup, List<SigningKey> keys) throws IOException;

    /** Writes the files into the zone's key directory. */
    KeyStore FILES =
        (setup, keys) -> {
          for (SigningKey k : keys) {
            KeyFiles.write(setup.directory(), k);
          }
        };

    /**
     * On a cluster: all of the step's files in one etcd transaction (every node mirrors them), then
     * into this node's key directory.
     */
    static KeyStore shared(KeyFileExchange exchange) {
      return (setup, keys) -> {
        Map<String, String> files = new LinkedHashMap<>();
        for (SigningKey k : keys) {
          String base = KeyFiles.baseName(k);
          files.put(base + ".key", KeyFiles.keyText(k));
          files.put(base + ".private", KeyFiles.privateText(k));
        }
        exchange.update(setup.zone().toString().toLowerCase(java.util.Locale.ROOT), files);
        FILES.write(setup, keys);
      };
    }

    /** Where {@code directory}'s keys go: its cluster's exchange, else its files. */
    static KeyStore of(KeyDirectory directory) {
      return directory.exchange() == null ? FILES : shared(directory.exchange());
    }
  }

  public KeyManager(KeyDirectory directory, AuditSink audit, KeyStore store) {
    this.directory = directory;
    this.audit = audit;
    this.store = store;
  }

  @Override
  public List<ZoneKeysView> zones() {
    List<ZoneKeysView> out = new ArrayList<>();
    Instant now = directory.now();
    for (Name z : directory.zones()) {
      view(z, now).ifPresent(out::add);
    }
    return out;
  }

  @Override
  public Optional<ZoneKeysView> zone(String zone) {
    Name name = parse(zone);
    return name == null ? Optional.empty() : view(name, directory.now());
  }

  private Optional<ZoneKeysView> view(Name zone, Instant now) {
    Optional<ZoneKeys> keys =
        directory.zones().contains(zone) ? directory.keys(zone) : Optional.empty();
    Optional<KeyDirectory.ZoneSetup> setup = directory.setup(zone);
    if (keys.isEmpty() || setup.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        ZoneKeyView.of(
            keys.get(),
            setup.get().directory(),
            setup.get().waits(),
            now,
            directory.problems(zone)));
  }

  @Override
  public synchronized StepOutcome step(Actor actor, String zone, RolloverStep step, String reason)
      throws IOException {
    Name name = parse(zone);
    Optional<ZoneKeys> keys =
        name == null || !directory.zones().contains(name) ? Optional.empty() : directory.keys(name);
    if (keys.isEmpty()) {
      throw new IllegalArgumentException(
          "zone: '" + zone + "' is not a signed zone (signed: " + directory.zones() + ")");
    }
    KeyDirectory.ZoneSetup setup = directory.setup(name).orElseThrow();
    Instant now = directory.now();
    KeyRollover.Plan plan = KeyRollover.plan(step, keys.get(), setup.waits(), now);
    if (plan instanceof KeyRollover.Refusal r) {
      return new Refused(step + " refused: " + r.message(), r.notBefore());
    }
    KeyRollover.Change change = (KeyRollover.Change) plan;
    store.write(setup, change.keys());
    directory.reload(name);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("zone", name.toString());
    details.put("step", step.toString());
    details.put("keys", change.keys().stream().map(SigningKey::tag).toList());
    details.put("message", change.message());
    audit.append(actor, "dnssec-" + step, null, reason, 0, 0, details);
    return new Done(change.message(), view(name, directory.now()).orElseThrow());
  }

  private static Name parse(String zone) {
    if (zone == null || zone.isBlank()) {
      return null;
    }
    try {
      return Name.fromString(zone.toLowerCase(java.util.Locale.ROOT), Name.root);
    } catch (TextParseException e) {
      return null;
    }
  }
}
