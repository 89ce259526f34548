package io.sluice.dns.response;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.CookieConfig;
import io.sluice.core.config.DnsConfig;
import io.sluice.core.config.SluiceConfig;
import java.nio.file.Path;

/**
 * The protocol settings the responder reads per query: the EDNS UDP payload size it advertises and
 * accepts, the CHAOS {@code version.bind}/{@code id.server} texts (null: refused), the NSID option
 * (RFC 5001) encoded once, code and length included (null: no NSID configured), so a query that
 * asks for it costs one array copy, response rate limiting, and the server cookie secrets (null:
 * cookies off) with whether UDP queries must present a valid server cookie.
 */
public record ResponderSettings(
    int udpPayloadSize,
    String chaosVersion,
    String chaosId,
    byte[] nsidOption,
    RateLimits rateLimits,
    CookieKeyring cookies,
    boolean requireCookie) {

  /**
   * The settings of {@code config}'s DNS section, named {@code source} in errors. With cookies
   * enabled this reads the secret files (and creates the current one, owner-only, when missing), so
   * it runs off the query path, at start and on every reload.
   */
  public static ResponderSettings of(SluiceConfig config, String source) throws ConfigException {
    return of(config, source, null);
  }

  /**
   * As {@link #of(SluiceConfig, String)} on a cluster node whose cookie secrets live in {@code
   * shared} (null on a single node): the configuration's secret files only seed it while it holds
   * none, and reloads keep the cluster's secrets.
   */
  public static ResponderSettings of(SluiceConfig config, String source, CookieKeyring shared)
      throws ConfigException {
    DnsConfig dns = config.dns();
    byte[] nsid = dns.nsidBytes();
    CookieConfig cookies = dns.cookies();
    Path stateDir = config.stateDirectory();
    return new ResponderSettings(
        dns.udpPayloadSize(),
        dns.chaos().version(),
        dns.chaos().id(),
        nsid == null ? null : EdnsOptions.option(EdnsOptions.NSID, nsid),
        new RateLimits(dns.rrl()),
        cookies.enabled() ? keyring(cookies, stateDir, source, shared) : null,
        cookies.enabled() && cookies.require());
  }

  private static CookieKeyring keyring(
      CookieConfig cookies, Path stateDir, String source, CookieKeyring shared)
      throws ConfigException {
    if (shared == null) {
      return CookieKeyring.fixed(CookieSecrets.load(cookies, stateDir, source));
    }
    if (shared.secrets() == null) {
      shared.set(CookieSecrets.load(cookies, stateDir, source));
    }
    return shared;
  }
}
