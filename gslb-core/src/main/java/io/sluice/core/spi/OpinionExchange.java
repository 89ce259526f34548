package io.sluice.core.spi;

import io.sluice.core.health.Opinion;
import java.util.Collection;

/**
 * Where the nodes of a cluster share their debounced health opinions: each node publishes the
 * opinions it holds (its own vantage and the probe agents that report to it) and hears everyone
 * else's fresh ones, so every node computes its verdicts from the same quorum. A single node shares
 * with nobody ({@link #NONE}) and decides from its own vantages exactly as before.
 */
public interface OpinionExchange extends AutoCloseable {

  /** A single node: nothing is shared, nothing is heard, always connected. */
  OpinionExchange NONE =
      new OpinionExchange() {
        @Override
        public void start(Listener listener) {}

        @Override
        public void publish(Opinion opinion) {}

        @Override
        public void withdraw(String endpoint, String vantage) {}

        @Override
        public Connection connection() {
          return Connection.UP;
        }

        @Override
        public void close() {}
      };

  /** Starts delivering the other nodes' opinions to {@code listener} (on the exchange's thread). */
  void start(Listener listener);

  /** Publishes (or replaces) one of this node's opinions; never blocks. */
  void publish(Opinion opinion);

  /** Withdraws one of this node's opinions (its vantage went stale, its endpoint is gone). */
  void withdraw(String endpoint, String vantage);

  /** Whether the exchange is reachable now, since when, and why not. */
  Connection connection();

  @Override
  void close();

  /** Whether the exchange is reachable: while it is not, a node keeps its verdicts as they are. */
  record Connection(boolean connected, long sinceMillis, String reason) {
    /** Always connected (a single node). */
    public static final Connection UP = new Connection(true, 0, null);
  }

  /** Receives the opinions other nodes publish. */
  interface Listener {
    /** Every fresh opinion there is now (at start and after a reconnect): forget all others. */
    void replaced(Collection<Opinion> all);

    /** One opinion was published or replaced. */
    void changed(Opinion opinion);

    /** One opinion was withdrawn or expired with its node's lease. */
    void removed(String endpoint, String vantage);

    /** The connection changed; see {@link OpinionExchange#connection()}. */
    void connectionChanged(Connection connection);
  }
}
