package io.sluice.probe.check;

import io.sluice.core.config.Addresses;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Where a check connects: an IP literal (no lookup) or a host name, resolved off the event loop
 * because the JDK resolver blocks.
 */
record CheckTarget(String host, int port) {

  boolean isLiteral() {
    return Addresses.isLiteral(host);
  }

  CompletableFuture<InetSocketAddress> resolve(Executor resolver) {
    if (isLiteral()) {
      try {
        return CompletableFuture.completedFuture(
            new InetSocketAddress(InetAddress.getByAddress(Addresses.parse(host)), port));
      } catch (UnknownHostException e) {
        return CompletableFuture.failedFuture(e);
      }
    }
    return CompletableFuture.supplyAsync(
        () -> {
          InetSocketAddress a = new InetSocketAddress(host, port);
          if (a.isUnresolved()) {
            throw new IllegalStateException("cannot resolve " + host);
          }
          return a;
        },
        resolver);
  }

  /** {@code host:port}, with IPv6 literals in brackets. */
  String authority() {
    return (host.indexOf(':') >= 0 ? "[" + host + "]" : host) + ":" + port;
  }
}
