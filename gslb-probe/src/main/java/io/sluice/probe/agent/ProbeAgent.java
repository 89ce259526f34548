package io.sluice.probe.agent;

import io.sluice.core.config.ConfigException;
import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.DurationParser;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.config.TokenFile;
import io.sluice.core.health.ProbeReport;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.probe.ExecutorTaskScheduler;
import io.sluice.probe.LocalProbes;
import io.sluice.probe.TaskScheduler;
import io.sluice.probe.check.CheckFactory;
import io.sluice.probe.check.CheckResult;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The probe-agent process role: runs the checks of a Sluice configuration from wherever it is
 * started and posts the raw results, as {@link ProbeReport}s, to a node's admin API, which combines
 * them with its own in the vantage quorum.
 *
 * <pre>
 * probe-agent --config sluice.yaml --vantage NAME --report-to URL
 *             (--token TOKEN | --token-file FILE | env SLUICE_PROBE_TOKEN) [--report-every 2s]
 * </pre>
 */
public final class ProbeAgent implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(ProbeAgent.class);

  /** Exit code: stopped normally. */
  public static final int OK = 0;

  /** Exit code: bad command line. */
  public static final int USAGE = 2;

  /** Exit code: the configuration is invalid. */
  public static final int BAD_CONFIG = 3;

  static final String USAGE_TEXT =
      "usage: probe-agent --config FILE --vantage NAME --report-to URL"
          + " (--token TOKEN | --token-file FILE | env SLUICE_PROBE_TOKEN) [--report-every 2s]";

  private final String vantage;
  private final TaskScheduler ts;
  private final AutoCloseable ownScheduler;
  private final CheckFactory checks = new CheckFactory(1);
  private final ReportPoster poster;
  private final long everyNanos;
  private List<ProbeReport.Result> buffer = new ArrayList<>();
  private volatile boolean closed;
  private volatile int lastStatus;

  private ProbeAgent(
      String vantage,
      URI reportTo,
      String token,
      Duration every,
      TaskScheduler ts,
      AutoCloseable own) {
    this.vantage = vantage;
    this.ts = ts;
    this.ownScheduler = own;
    this.poster = new ReportPoster(reportTo, token);
    this.everyNanos = every.toNanos();
  }

  /** Starts an agent on its own thread and the system clock. */
  public static ProbeAgent start(
      SluiceConfig config, String vantage, URI reportTo, String token, Duration every) {
    ExecutorTaskScheduler ts = new ExecutorTaskScheduler(Ticker.SYSTEM);
    ProbeAgent a = new ProbeAgent(vantage, reportTo, token, every, ts, ts);
    LocalProbes.start(config, ts, a.checks, GslbMetrics.NOOP, new SplittableRandom(), a::onResult);
    ts.schedule(a::flush, a.everyNanos);
    return a;
  }

  private void onResult(String target, String check, CheckResult r, long atMillis) {
    buffer.add(new ProbeReport.Result(target, check, r.ok(), r.rttMillis(), r.error()));
  }

  private void flush() {
    if (closed) {
      return;
    }
    ts.schedule(this::flush, everyNanos);
    if (buffer.isEmpty()) {
      return;
    }
    ProbeReport report = new ProbeReport(vantage, ts.ticker().currentTimeMillis(), buffer);
    buffer = new ArrayList<>();
    poster
        .post(report)
        .whenComplete(
            (res, err) -> {
              if (err != null) {
                lastStatus = -1;
                LOG.warn("probe report to the node failed: {}", err.toString());
              } else {
                lastStatus = res.statusCode();
                if (res.statusCode() / 100 != 2) {
                  LOG.warn("probe report rejected: HTTP {} {}", res.statusCode(), res.body());
                }
              }
            });
  }

  /** The HTTP status of the last report (0 before the first, -1 after a transport error). */
  public int lastStatus() {
    return lastStatus;
  }

  @Override
  public void close() {
    closed = true;
    try {
      ownScheduler.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    checks.close();
  }

  /** What {@code --help} prints: the usage and an example. */
  static final String HELP_TEXT =
      USAGE_TEXT
          + "\n\nRun the checks of FILE from this host as one more vantage and post the results"
          + " to a node.\n\nExample:\n"
          + "  sluice probe-agent --config sluice.yaml --vantage ams-probe \\\n"
          + "      --report-to https://fra-node-1:8053/api/v1/probe-reports"
          + " --token-file /etc/sluice/probe.token";

  /** Runs the agent until the process is stopped; returns the exit code. */
  public static int run(String[] args) {
    if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
      System.out.println(HELP_TEXT);
      return OK;
    }
    return run(args, System.err, System.getenv("SLUICE_PROBE_TOKEN"), new CountDownLatch(1));
  }

  /** {@link #run(String[])} with its outputs and stop signal given, for tests. */
  static int run(String[] args, PrintStream err, String envToken, CountDownLatch stop) {
    String config = null;
    String vantage = null;
    String reportTo = null;
    String token = envToken;
    String tokenFile = null;
    Duration every = Duration.ofSeconds(2);
    for (int i = 0; i < args.length; i++) {
      String a = args[i];
      if (i + 1 >= args.length) {
        err.println("probe-agent: " + a + " needs a value\n" + USAGE_TEXT);
        return USAGE;
      }
      String v = args[++i];
      switch (a) {
        case "--config" -> config = v;
        case "--vantage" -> vantage = v;
        case "--report-to" -> reportTo = v;
        case "--token" -> token = v;
        case "--token-file" -> tokenFile = v;
        case "--report-every" -> {
          try {
            every = DurationParser.parse(v);
          } catch (IllegalArgumentException e) {
            err.println("probe-agent: --report-every: " + e.getMessage());
            return USAGE;
          }
        }
        default -> {
          err.println("probe-agent: unknown option " + a + "\n" + USAGE_TEXT);
          return USAGE;
        }
      }
    }
    if (tokenFile != null) {
      try {
        token = TokenFile.read(Path.of(tokenFile));
      } catch (NoSuchFileException e) {
        err.println("probe-agent: --token-file: token file not found: " + tokenFile);
        return USAGE;
      } catch (IOException e) {
        err.println("probe-agent: --token-file: " + e.getMessage());
        return USAGE;
      }
    }
    String missing =
        config == null
            ? "--config"
            : vantage == null
                ? "--vantage"
                : reportTo == null
                    ? "--report-to"
                    : token == null || token.isBlank() ? "--token" : null;
    if (missing != null) {
      err.println("probe-agent: " + missing + " is required\n" + USAGE_TEXT);
      return USAGE;
    }
    if (!vantage.matches("[A-Za-z0-9._-]{1,64}")) {
      err.println("probe-agent: --vantage: must be 1..64 letters, digits, '.', '_' or '-'");
      return USAGE;
    }
    URI uri;
    try {
      uri = URI.create(reportTo);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
        throw new IllegalArgumentException("must be an http(s) URL");
      }
    } catch (IllegalArgumentException e) {
      err.println("probe-agent: --report-to: " + e.getMessage());
      return USAGE;
    }
    SluiceConfig cfg;
    try {
      cfg = ConfigLoader.load(Path.of(config));
    } catch (ConfigException e) {
      err.println("probe-agent: " + e.getMessage());
      return BAD_CONFIG;
    }
    if (vantage.equals(cfg.probes().vantage())) {
      err.println(
          "probe-agent: --vantage: '"
              + vantage
              + "' is the node's own vantage name (probes.vantage)");
      return USAGE;
    }
    try (ProbeAgent agent = start(cfg, vantage, uri, token, every)) {
      Thread hook = new Thread(stop::countDown, "probe-agent-stop");
      Runtime.getRuntime().addShutdownHook(hook);
      LOG.info("probe agent '{}' reporting to {}", vantage, uri);
      stop.await();
      try {
        Runtime.getRuntime().removeShutdownHook(hook);
      } catch (IllegalStateException shuttingDown) {
        // The JVM is already stopping: the hook is running, nothing to remove.
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return OK;
  }
}
