package io.sluice.core.config;

import java.time.Duration;

/**
 * What the node keeps for looking back at its answers: the history of the states it served (for
 * {@code sluice ctl why}), a sampled JSON-lines decision log (off unless a file is set) and dnstap
 * output of every query (off unless a file or socket is set).
 */
public record ObservabilityConfig(History history, DecisionLog decisionLog, Dnstap dnstap) {

  public ObservabilityConfig {
    history = history == null ? History.defaults() : history;
    decisionLog = decisionLog == null ? DecisionLog.defaults() : decisionLog;
    dnstap = dnstap == null ? Dnstap.defaults() : dnstap;
  }

  /** Everything at its default: history on, decision log and dnstap off. */
  public static ObservabilityConfig defaults() {
    return new ObservabilityConfig(null, null, null);
  }

  void validate(String path, Problems p) {
    history.validate(Problems.child(path, "history"), p);
    decisionLog.validate(Problems.child(path, "decisionLog"), p);
    dnstap.validate(Problems.child(path, "dnstap"), p);
  }

  /**
   * The state history ({@code history.jsonl} in the state directory): at most {@code maxEntries}
   * changes, none older than {@code maxAge}; RTT-only changes are recorded at most once per {@code
   * rttInterval}.
   */
  public record History(
      Boolean enabled, Integer maxEntries, Duration maxAge, Duration rttInterval) {
    public History {
      enabled = enabled == null ? Boolean.TRUE : enabled;
      maxEntries = maxEntries == null ? 10_000 : maxEntries;
      maxAge = maxAge == null ? Duration.ofDays(7) : maxAge;
      rttInterval = rttInterval == null ? Duration.ofMinutes(1) : rttInterval;
    }

    static History defaults() {
      return new History(null, null, null, null);
    }

    void validate(String path, Problems p) {
      p.range(Problems.child(path, "maxEntries"), maxEntries, 10, 10_000_000);
      if (maxAge.compareTo(Duration.ofMinutes(1)) < 0) {
        p.add(Problems.child(path, "maxAge"), "must be at least 1m, was " + maxAge);
      }
      if (rttInterval.isNegative()) {
        p.add(Problems.child(path, "rttInterval"), "must not be negative");
      }
    }
  }

  /**
   * The sampled decision log: one JSON line per sampled answer of a GSLB service, written to {@code
   * file} (relative: to the state directory), rotated at {@code maxBytes} keeping {@code keep} old
   * files; {@code sample} is the fraction of answers logged.
   */
  public record DecisionLog(String file, Double sample, Long maxBytes, Integer keep) {
    public DecisionLog {
      sample = sample == null ? 0.01 : sample;
      maxBytes = maxBytes == null ? 64L * 1024 * 1024 : maxBytes;
      keep = keep == null ? 3 : keep;
    }

    static DecisionLog defaults() {
      return new DecisionLog(null, null, null, null);
    }

    /** Whether a file is configured. */
    public boolean enabled() {
      return file != null;
    }

    void validate(String path, Problems p) {
      if (file != null && file.isBlank()) {
        p.add(Problems.child(path, "file"), "must not be empty (leave it out to log nothing)");
      }
      if (!(sample > 0 && sample <= 1)) {
        p.add(Problems.child(path, "sample"), "must be more than 0 and at most 1, was " + sample);
      }
      p.range(Problems.child(path, "maxBytes"), maxBytes, 4096, Long.MAX_VALUE);
      p.range(Problems.child(path, "keep"), keep, 0, 100);
    }
  }

  /**
   * dnstap output (Frame Streams, protobuf {@code dnstap.Dnstap} messages AUTH_QUERY and
   * AUTH_RESPONSE) to a {@code file} and/or a Unix {@code socket} (relative: to the state
   * directory); {@code queue} bounds the messages waiting for the writer (beyond it they are
   * dropped and counted); {@code identity} is sent in every message (default: none).
   */
  public record Dnstap(String file, String socket, Integer queue, String identity) {
    public Dnstap {
      queue = queue == null ? 8192 : queue;
    }

    static Dnstap defaults() {
      return new Dnstap(null, null, null, null);
    }

    /** Whether a file or socket is configured. */
    public boolean enabled() {
      return file != null || socket != null;
    }

    void validate(String path, Problems p) {
      if (file != null && file.isBlank()) {
        p.add(Problems.child(path, "file"), "must not be empty (leave it out)");
      }
      if (socket != null && socket.isBlank()) {
        p.add(Problems.child(path, "socket"), "must not be empty (leave it out)");
      }
      p.range(Problems.child(path, "queue"), queue, 16, 1 << 20);
    }
  }
}
