package io.sluice.probe;

import java.util.List;

/**
 * What the probe engine shows operators: this vantage, where the verdicts came from at start
 * ({@code history}: fresh install, restored, unreadable), whether the initial round of checks is
 * done, load and schedule lag, pools without checks (their endpoints are served as up), the
 * vantages heard from (in a cluster also the other nodes' and their agents' opinions, with the node
 * they came through), the endpoints held by flap damping, and whether this node shares opinions
 * with a cluster and is connected to it.
 */
public record ProbeStatus(
    String vantage,
    String history,
    boolean freshInstall,
    boolean initialRoundComplete,
    int endpoints,
    int targets,
    int inFlight,
    int queued,
    long checksRun,
    double lagP50Millis,
    double lagP99Millis,
    double lagMaxMillis,
    List<String> uncheckedPools,
    List<VantageStatus> vantages,
    List<HeldEndpoint> held,
    Exchange exchange) {

  /** The status before the engine has started. */
  static final ProbeStatus STARTING =
      new ProbeStatus(
          "",
          "starting",
          false,
          false,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          0,
          List.of(),
          List.of(),
          List.of(),
          Exchange.SINGLE);

  public ProbeStatus {
    uncheckedPools = List.copyOf(uncheckedPools);
    vantages = List.copyOf(vantages);
    held = List.copyOf(held);
  }

  /** One vantage: whether its results are fresh and its probe path (canaries) healthy. */
  public record VantageStatus(
      String name, boolean fresh, boolean pathOk, long lastSeenMillis, String via) {
    /** A vantage this node holds itself (its own, or an agent reporting to it). */
    public VantageStatus(String name, boolean fresh, boolean pathOk, long lastSeenMillis) {
      this(name, fresh, pathOk, lastSeenMillis, null);
    }
  }

  /**
   * The opinion exchange of a cluster: {@code shared} false on a single node; while not {@code
   * connected} (since {@code sinceMillis}, for {@code reason}) verdicts are held as they are.
   */
  public record Exchange(boolean shared, boolean connected, long sinceMillis, String note) {
    static final Exchange SINGLE = new Exchange(false, true, 0, "single node: no opinion exchange");
  }

  /** An endpoint held by flap damping until {@code untilMillis}. */
  public record HeldEndpoint(String endpoint, String verdict, long untilMillis) {}
}
