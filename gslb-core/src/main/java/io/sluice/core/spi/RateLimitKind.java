package io.sluice.core.spi;

/**
 * The kinds of answer response rate limiting counts apart (each with its own rate), so that a flood
 * of one kind never spends another kind's budget.
 */
public enum RateLimitKind {
  /**
   * Answers with data, and referrals: counted per client network, name and type, or per zone for
   * names the zone does not hold itself (wildcard, DNAME, below a delegation).
   */
  ANSWER("answer"),
  /** NOERROR without data: counted per client network and zone. */
  NODATA("nodata"),
  /** NXDOMAIN: counted per client network and zone, so random names share one budget. */
  NXDOMAIN("nxdomain"),
  /** Every other rcode (REFUSED, SERVFAIL, FORMERR, ...): counted per client network. */
  ERROR("error");

  private final String label;

  RateLimitKind(String label) {
    this.label = label;
  }

  /** The metrics label. */
  public String label() {
    return label;
  }
}
