package io.sluice.probe.testing;

import io.sluice.core.health.Opinion;
import io.sluice.core.spi.OpinionExchange;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * An opinion exchange held in memory: records what the engine publishes and withdraws, and lets a
 * test play the other nodes (their opinions, their expiry, a lost connection).
 */
public final class RecordingExchange implements OpinionExchange {
  /** Every publish and withdrawal, in order ({@code null} opinion for a withdrawal). */
  public final List<Opinion> published = new ArrayList<>();

  private volatile Listener listener;
  private volatile Connection connection = Connection.UP;

  @Override
  public void start(Listener l) {
    this.listener = l;
    l.replaced(List.of());
  }

  @Override
  public synchronized void publish(Opinion opinion) {
    published.add(opinion);
  }

  @Override
  public synchronized void withdraw(String endpoint, String vantage) {
    published.add(null);
  }

  /** The opinions published of {@code vantage}. */
  public synchronized List<Opinion> of(String vantage) {
    return published.stream().filter(o -> o != null && o.vantage().equals(vantage)).toList();
  }

  @Override
  public Connection connection() {
    return connection;
  }

  /** Another node publishes {@code o}. */
  public void remote(Opinion o) {
    listener.changed(o);
  }

  /** Another node's opinion is withdrawn or expires with its lease. */
  public void expire(String endpoint, String vantage) {
    listener.removed(endpoint, vantage);
  }

  /** The whole view is read again (a reconnect). */
  public void replaced(Collection<Opinion> all) {
    listener.replaced(all);
  }

  /** The exchange becomes reachable or unreachable. */
  public void connected(boolean up, long atMillis) {
    connection = new Connection(up, atMillis, up ? null : "etcd does not answer");
    listener.connectionChanged(connection);
  }

  @Override
  public void close() {}
}
