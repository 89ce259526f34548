package io.sluice.dns.response;

import io.sluice.core.spi.CookieSecretExchange.Secrets;

/**
 * The server cookie secrets the responder uses now, behind one volatile read. A single node's
 * keyring is fixed by its configuration (its secret files) and rebuilt on reload; a cluster node
 * has one keyring for its whole life, set from the secrets the cluster shares, so a rotation on any
 * node reaches its queries without a reload.
 */
public final class CookieKeyring {
  private volatile Keys keys;

  /** The secrets and the cookies they make, swapped together. */
  private record Keys(Secrets secrets, ServerCookies cookies) {}

  /** A keyring that knows no secret yet (a cluster node before its first configuration). */
  public CookieKeyring() {}

  static CookieKeyring fixed(Secrets secrets) {
    CookieKeyring k = new CookieKeyring();
    k.set(secrets);
    return k;
  }

  /** Makes {@code secrets} the ones cookies are made and checked with, from the next query on. */
  public void set(Secrets secrets) {
    keys = new Keys(secrets, new ServerCookies(secrets.current(), secrets.previous()));
  }

  /** The secrets in use, or null before any was set. */
  public Secrets secrets() {
    Keys k = keys;
    return k == null ? null : k.secrets;
  }

  /** The cookies of the secrets in use; only called once some were set. */
  ServerCookies cookies() {
    return keys.cookies;
  }
}
