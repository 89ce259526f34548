package io.sluice.core.config;

import java.nio.file.Path;
import java.time.Duration;

/**
 * DNSSEC signing of one zone ({@code zones[i].dnssec}), on when the section is written (unless
 * {@code enabled: false}): where the zone's keys live (BIND key files; relative to the state
 * directory, {@code <stateDir>/keys/<zone>} when left out), the algorithm of keys Sluice generates,
 * whether a combined signing key is generated on first start when the directory holds none (by
 * default only for the default directory, so a mistyped {@code keyDirectory} never silently signs
 * with a new key the parent does not know), the lifetimes of signatures, how non-existence is
 * proved, and the TTLs the rollover steps wait for.
 */
public record DnssecConfig(
    Boolean enabled,
    String keyDirectory,
    DnssecAlgorithm algorithm,
    Boolean generate,
    Duration signatureValidity,
    Duration signatureRefresh,
    Duration signatureJitter,
    Duration inceptionOffset,
    DenialMode denial,
    Duration dnskeyTtl,
    Duration propagationDelay,
    Duration parentDsTtl,
    Duration maxZoneTtl) {

  /** The directory under the state directory that holds each zone's default key directory. */
  public static final String KEYS_DIR = "keys";

  public DnssecConfig {
    enabled = enabled == null ? Boolean.TRUE : enabled;
    algorithm = algorithm == null ? DnssecAlgorithm.ECDSAP256SHA256 : algorithm;
    generate = generate == null ? Boolean.valueOf(keyDirectory == null) : generate;
    signatureValidity = signatureValidity == null ? Duration.ofDays(14) : signatureValidity;
    signatureRefresh = signatureRefresh == null ? Duration.ofDays(7) : signatureRefresh;
    signatureJitter = signatureJitter == null ? Duration.ofDays(1) : signatureJitter;
    // Covers resolvers whose clocks run behind the signer's.
    inceptionOffset = inceptionOffset == null ? Duration.ofHours(1) : inceptionOffset;
    denial = denial == null ? DenialMode.COMPACT : denial;
    dnskeyTtl = dnskeyTtl == null ? Duration.ofHours(1) : dnskeyTtl;
    propagationDelay = propagationDelay == null ? Duration.ofMinutes(5) : propagationDelay;
    parentDsTtl = parentDsTtl == null ? Duration.ofDays(1) : parentDsTtl;
  }

  /** Signing with every default: keys generated into the state directory on first start. */
  public static DnssecConfig defaults() {
    return new DnssecConfig(
        null, null, null, null, null, null, null, null, null, null, null, null, null);
  }

  /**
   * The zone's key directory: {@code keyDirectory} resolved against {@code stateDirectory}, or
   * {@code <stateDirectory>/keys/<zone>} (the zone without its trailing dot; {@code root} for the
   * root zone).
   */
  public Path keyDirectory(Path stateDirectory, String origin) {
    if (keyDirectory != null) {
      return stateDirectory.resolve(keyDirectory).normalize();
    }
    String zone = DomainNames.canonical(origin);
    String dir = zone.equals(".") ? "root" : zone.substring(0, zone.length() - 1);
    return stateDirectory.resolve(KEYS_DIR).resolve(dir).normalize();
  }

  void validate(String path, Problems p) {
    if (keyDirectory != null && keyDirectory.isBlank()) {
      p.add(
          Problems.child(path, "keyDirectory"),
          "must not be empty (leave it out for <stateDir>/keys/<zone>)");
    }
    seconds(
        path, "signatureValidity", signatureValidity, Duration.ofHours(1), Duration.ofDays(366), p);
    seconds(
        path, "signatureRefresh", signatureRefresh, Duration.ofMinutes(1), Duration.ofDays(365), p);
    seconds(path, "signatureJitter", signatureJitter, Duration.ZERO, Duration.ofDays(365), p);
    seconds(path, "inceptionOffset", inceptionOffset, Duration.ZERO, Duration.ofDays(7), p);
    seconds(path, "dnskeyTtl", dnskeyTtl, Duration.ZERO, Duration.ofDays(7), p);
    seconds(path, "propagationDelay", propagationDelay, Duration.ZERO, Duration.ofDays(7), p);
    seconds(path, "parentDsTtl", parentDsTtl, Duration.ZERO, Duration.ofDays(30), p);
    if (maxZoneTtl != null) {
      seconds(path, "maxZoneTtl", maxZoneTtl, Duration.ZERO, Duration.ofDays(30), p);
    }
    shorter(path, "signatureRefresh", signatureRefresh, "signatureValidity", signatureValidity, p);
    shorter(path, "signatureJitter", signatureJitter, "signatureRefresh", signatureRefresh, p);
  }

  // The refresh is the validity left when a signature is renewed; the jitter comes off the refresh.
  private static void shorter(
      String path, String key, Duration d, String otherKey, Duration other, Problems p) {
    if (d.compareTo(other) >= 0) {
      p.add(
          Problems.child(path, key),
          "must be shorter than "
              + otherKey
              + " ("
              + DurationParser.format(other)
              + "), was "
              + DurationParser.format(d));
    }
  }

  private static void seconds(
      String path, String key, Duration d, Duration min, Duration max, Problems p) {
    if (d.compareTo(min) < 0 || d.compareTo(max) > 0 || d.getNano() != 0) {
      p.add(
          Problems.child(path, key),
          "must be whole seconds from "
              + DurationParser.format(min)
              + " to "
              + DurationParser.format(max)
              + ", was "
              + DurationParser.format(d));
    }
  }
}
