package io.sluice.dns.dnssec;

import io.sluice.core.config.DnssecConfig;
import java.time.Duration;
import java.util.Objects;

/**
 * How a signed zone's signatures are made: their validity, when they are refreshed, the jitter that
 * spreads their expiry, how far inception is backdated for clocks that run behind, and how many
 * signatures per second the query path may make online (denial of existence) before it falls back.
 */
public record SigningPolicy(
    Duration validity,
    Duration refresh,
    Duration jitter,
    Duration inceptionOffset,
    int onlineSignaturesPerSecond) {

  /** 14 days of validity, refreshed with 7 days left, 1 day of jitter, inception 1 hour back. */
  public static final SigningPolicy DEFAULT =
      new SigningPolicy(
          Duration.ofDays(14), Duration.ofDays(7), Duration.ofDays(1), Duration.ofHours(1), 1000);

  public SigningPolicy {
    Objects.requireNonNull(validity, "validity");
    Objects.requireNonNull(refresh, "refresh");
    Objects.requireNonNull(jitter, "jitter");
    Objects.requireNonNull(inceptionOffset, "inceptionOffset");
    if (refresh.compareTo(validity) >= 0) {
      throw new IllegalArgumentException("signatureRefresh must be shorter than signatureValidity");
    }
    if (onlineSignaturesPerSecond < 1) {
      throw new IllegalArgumentException("onlineSignaturesPerSecond must be at least 1");
    }
  }

  /** The policy a zone's {@code dnssec} section asks for. */
  public static SigningPolicy of(DnssecConfig c) {
    return new SigningPolicy(
        c.signatureValidity(),
        c.signatureRefresh(),
        c.signatureJitter(),
        c.inceptionOffset(),
        DEFAULT.onlineSignaturesPerSecond());
  }

  /** This policy with {@code perSecond} online signatures per second. */
  public SigningPolicy withOnlineSignaturesPerSecond(int perSecond) {
    return new SigningPolicy(validity, refresh, jitter, inceptionOffset, perSecond);
  }
}
