package io.sluice.server.app;

import io.sluice.core.history.StateHistory;
import io.sluice.dns.tap.DnstapOutput;
import io.sluice.policy.PolicyPlanner;

/**
 * What a node keeps to look back at its answers: the planner (whose sampler evaluates shadow chains
 * and writes the decision log), the state history ({@code ctl why}; null when turned off) and the
 * dnstap output (null when off). Closed after the DNS listeners, so the last answers are written.
 */
public final class LookBack implements AutoCloseable {
  private final PolicyPlanner planner;
  private volatile StateHistory history;
  private volatile DnstapOutput dnstap;

  LookBack(PolicyPlanner planner) {
    this.planner = planner;
  }

  void history(StateHistory h) {
    this.history = h;
  }

  void dnstap(DnstapOutput d) {
    this.dnstap = d;
  }

  /** The state history, or null when {@code observability.history.enabled} is false. */
  public StateHistory history() {
    return history;
  }

  /** The dnstap output, or null when none is configured. */
  public DnstapOutput dnstap() {
    return dnstap;
  }

  /** Waits until the sampled answers, the history and dnstap have caught up (tests). */
  public void awaitIdle() throws InterruptedException {
    planner.awaitSamples();
    if (history != null) {
      history.flush();
    }
    if (dnstap != null) {
      dnstap.awaitIdle();
    }
  }

  @Override
  public void close() {
    if (dnstap != null) {
      dnstap.close();
    }
    planner.close();
    if (history != null) {
      history.close();
    }
  }
}
