package io.sluice.server.app;

import io.sluice.core.config.ConfigChanges;
import io.sluice.core.config.ConfigException;
import io.sluice.core.config.HttpsConfig;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.control.Actor;
import io.sluice.core.control.AuditSink;
import io.sluice.core.control.CommandResult;
import io.sluice.core.control.ConfigReloader;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.Snapshot;
import io.sluice.policy.PolicyPlanner;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reloads the configuration file of a running node: load, validate, re-apply the command-line
 * overrides, build everything the node serves from it (zones, encoded answers, policy chain), then
 * swap it in whole. An invalid file is rejected with every problem logged, and the node keeps
 * serving what it had.
 */
public final class FileConfigReloader implements ConfigReloader {
  private static final Logger log = LoggerFactory.getLogger(FileConfigReloader.class);

  private final Path file;
  private final CliOverrides overrides;
  private final SluiceNode node;
  private final AuditSink audit;

  /** A reloader that audits nothing (tests of the reload itself). */
  public FileConfigReloader(Path file, CliOverrides overrides, SluiceNode node) {
    this(file, overrides, node, AuditSink.NONE);
  }

  /** A reloader that records every applied reload, with what it changed, in {@code audit}. */
  public FileConfigReloader(Path file, CliOverrides overrides, SluiceNode node, AuditSink audit) {
    this.file = file;
    this.overrides = overrides;
    this.node = node;
    this.audit = audit;
  }

  /**
   * The local admin token stands in when the new file declares no tokens, as on start; it lives in
   * the running state directory (a changed stateDir takes effect on restart).
   */
  private SluiceConfig withLocalToken(SluiceConfig config) throws ConfigException {
    try {
      return AdminBootstrapToken.applyTo(config, node.store().current().config().stateDirectory());
    } catch (IOException e) {
      throw new ConfigException(
          file.toString(),
          "admin.tokens",
          "cannot create the local admin token: " + e.getMessage());
    }
  }

  @Override
  public synchronized CommandResult reload(Actor actor) throws ConfigException {
    try {
      SluiceConfig config;
      try {
        config = withLocalToken(ConfigCheck.load(file, overrides, false));
      } catch (ConfigException e) {
        // Rejected before the node saw it; the node counts the reloads that reach it.
        node.reloadRejected();
        throw e;
      }
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("file", file.toString());
      return applyAndAudit(
          node,
          audit,
          config,
          file.toString(),
          actor,
          "config-reload",
          () -> "reloaded " + file,
          details,
          () -> {});
    } catch (IOException e) {
      throw new ConfigException(file.toString(), "", e.getMessage());
    } catch (ConfigException e) {
      throw rejected(file, actor, e);
    }
  }

  /** Logs a rejected reload with every problem; returns {@code e} to throw. */
  static ConfigException rejected(Path file, Actor actor, ConfigException e) {
    log.error(
        "reload of {} by {} rejected, still serving the previous config:\n{}",
        file,
        actor.name(),
        e.getMessage());
    return e;
  }

  /**
   * Applies a checked {@code config} on {@code node} in one swap ({@code beforeSwap} runs once it
   * is built), warns about settings only a restart changes, logs and audits {@code action} with
   * what changed; {@code what} opens the message ("reloaded FILE").
   */
  static CommandResult applyAndAudit(
      SluiceNode node,
      AuditSink audit,
      SluiceConfig config,
      String name,
      Actor actor,
      String action,
      Supplier<String> what,
      Map<String, Object> details,
      ConfigPublisher.BeforeSwap beforeSwap)
      throws ConfigException, IOException {
    SluiceConfig running = node.store().current().config();
    if (!config.dns().listen().equals(running.dns().listen())
        || !config.dns().port().equals(running.dns().port())
        || !config.dns().threads().equals(running.dns().threads())) {
      log.warn("dns.listen, dns.port and dns.threads changes take effect after a restart");
    }
    if (!config.dns().maxTcpConnections().equals(running.dns().maxTcpConnections())
        || !config
            .dns()
            .maxTcpConnectionsPerSource()
            .equals(running.dns().maxTcpConnectionsPerSource())
        || !config.dns().tcpIdleTimeout().equals(running.dns().tcpIdleTimeout())
        || !config.dns().tcpMessageTimeout().equals(running.dns().tcpMessageTimeout())) {
      log.warn("dns TCP limits and timeouts take effect after a restart");
    }
    HttpsConfig https = config.dns().https();
    HttpsConfig runningHttps = running.dns().https();
    if (!https.maxConnections().equals(runningHttps.maxConnections())
        || !https.maxConnectionsPerSource().equals(runningHttps.maxConnectionsPerSource())
        || !https.idleTimeout().equals(runningHttps.idleTimeout())
        || !https.requestTimeout().equals(runningHttps.requestTimeout())) {
      log.warn("dns.https connection limits and timeouts take effect after a restart");
    }
    if (!config.dns().rrl().tableSize().equals(running.dns().rrl().tableSize())) {
      log.warn("dns.rrl.tableSize takes effect after a restart");
    }
    long before = node.store().current().version();
    // Builds everything once and publishes it in one swap, or throws having changed nothing.
    Snapshot s = node.apply(config, name, beforeSwap);
    for (String warning : PolicyPlanner.warnings(s.artifacts())) {
      log.warn("{}", warning);
    }
    // Both as served, with the pools' dynamic members: a reload does not remove them.
    ConfigChanges changes = ConfigChanges.between(running, s.config());
    String message = what.get() + ": " + config.zones().size() + " zone(s); " + changes.summary();
    log.info("{} (by {}, snapshot {})", message, actor.name(), s.version());
    Map<String, Object> all = new LinkedHashMap<>(details);
    all.put("changes", changes.toMap());
    audit.append(actor, action, null, changes.summary(), before, s.version(), all);
    Map<String, Object> result = new LinkedHashMap<>(details);
    result.put("changes", changes.toMap());
    return new CommandResult(s.version(), true, message, result);
  }
}
