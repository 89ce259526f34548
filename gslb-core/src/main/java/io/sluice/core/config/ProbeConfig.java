package io.sluice.core.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.List;

/**
 * Node-wide probe settings: this node's vantage name, the always-up canary targets that watch the
 * probe path, how long start-up waits for a first round of checks, the cap on checks in flight, the
 * vantage quorum and when a vantage's results go stale.
 *
 * <p>A canary is {@code host:port} (TCP connect; IPv6 as {@code [::1]:port}) or an {@code http://}
 * / {@code https://} URL that must answer 2xx.
 */
public record ProbeConfig(
    String vantage,
    List<String> canaries,
    Duration startupWait,
    Integer maxInFlight,
    Integer quorum,
    Duration staleAfter) {

  public ProbeConfig {
    vantage = vantage == null ? "local" : vantage;
    canaries = Lists.copy(canaries);
    startupWait = startupWait == null ? Duration.ofSeconds(5) : startupWait;
    maxInFlight = maxInFlight == null ? 512 : maxInFlight;
    staleAfter = staleAfter == null ? Duration.ofSeconds(90) : staleAfter;
  }

  public static ProbeConfig defaults() {
    return new ProbeConfig(null, null, null, null, null, null);
  }

  /** The number of agreeing vantages needed out of {@code fresh} usable ones. */
  public int quorumOf(int fresh) {
    int majority = fresh / 2 + 1;
    return quorum == null ? majority : Math.min(quorum, fresh);
  }

  void validate(String path, Problems p) {
    if (!vantage.matches("[A-Za-z0-9._-]{1,64}")) {
      p.add(
          Problems.child(path, "vantage"),
          "must be 1..64 letters, digits, '.', '_' or '-', was '" + vantage + "'");
    }
    if (startupWait.isNegative()) {
      p.add(Problems.child(path, "startupWait"), "must not be negative");
    }
    p.range(Problems.child(path, "maxInFlight"), maxInFlight, 1, 1_000_000);
    if (quorum != null) {
      p.range(Problems.child(path, "quorum"), quorum, 1, 1000);
    }
    if (staleAfter.isNegative() || staleAfter.isZero()) {
      p.add(Problems.child(path, "staleAfter"), "must be positive");
    }
    for (int i = 0; i < canaries.size(); i++) {
      String why = canaryProblem(canaries.get(i));
      if (why != null) {
        p.add(Problems.index(Problems.child(path, "canaries"), i), why);
      }
    }
  }

  /** Why {@code canary} is not a valid canary target, or null when it is. */
  public static String canaryProblem(String canary) {
    if (canary == null || canary.isBlank()) {
      return "must not be empty";
    }
    String bad = "must be host:port or an http(s):// URL, was '" + canary + "'";
    if (canary.startsWith("http://") || canary.startsWith("https://")) {
      try {
        URI u = new URI(canary);
        return u.getHost() == null ? bad : null;
      } catch (URISyntaxException e) {
        return bad;
      }
    }
    try {
      URI u = new URI("tcp://" + canary);
      return u.getHost() == null || u.getPort() < 1 || u.getPort() > 65535 ? bad : null;
    } catch (URISyntaxException e) {
      return bad;
    }
  }
}
