package io.sluice.server.app;

import io.sluice.core.config.CookieConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.spi.CookieRotation;
import io.sluice.core.spi.CookieSecretExchange;
import io.sluice.core.spi.CookieSecretExchange.Secrets;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.CookieKeyring;
import java.io.IOException;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A cluster node's DNS cookie secrets: the keyring its responder reads, kept equal to the secrets
 * the cluster shares, and the rotate command. The first node seeds the cluster with the secret its
 * files hold (so a cluster that shared one by hand keeps its cookies valid); each change is also
 * written to the node's secret file, so a node that restarts cut off from the cluster starts with
 * the secret it knew last.
 */
final class SharedCookies implements CookieRotation, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(SharedCookies.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final CookieKeyring keyring;
  private final CookieSecretExchange exchange;
  private final SnapshotStore store;

  private SharedCookies(CookieKeyring keyring, CookieSecretExchange exchange, SnapshotStore store) {
    this.keyring = keyring;
    this.exchange = exchange;
    this.store = store;
  }

  /**
   * Starts following the cluster's secrets through {@code exchange} into {@code keyring} (which the
   * first configuration seeded from the secret files when cookies are on), never waiting for the
   * cluster.
   */
  static SharedCookies start(
      CookieKeyring keyring, CookieSecretExchange exchange, SnapshotStore store) {
    SharedCookies s = new SharedCookies(keyring, exchange, store);
    Secrets seed = keyring.secrets();
    exchange.start(seed != null ? seed : new Secrets(fresh(), null), s::apply);
    return s;
  }

  private synchronized void apply(Secrets secrets) {
    Secrets before = keyring.secrets();
    if (secrets.equals(before)) {
      return;
    }
    keyring.set(secrets);
    log.info("cookie secret of the cluster now {}", secrets.fingerprint());
    SluiceConfig config = store.current().config();
    CookieConfig cookies = config.dns().cookies();
    if (!cookies.enabled()) {
      return;
    }
    Path file = config.stateDirectory().resolve(cookies.secretFile());
    try {
      TokenFile.writePrivate(file, HexFormat.of().formatHex(secrets.current()) + "\n");
    } catch (IOException e) {
      log.warn("cannot keep the cluster's cookie secret in {}: {}", file, e.getMessage());
    }
  }

  @Override
  public Secrets rotate() throws IOException {
    // This node's keyring follows through the exchange's listener, in etcd's order.
    return exchange.rotate(fresh());
  }

  private static byte[] fresh() {
    byte[] b = new byte[Secrets.LENGTH];
    RANDOM.nextBytes(b);
    return b;
  }

  @Override
  public void close() {
    exchange.close();
  }
}
