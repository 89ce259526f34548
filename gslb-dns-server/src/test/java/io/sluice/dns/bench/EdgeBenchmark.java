package io.sluice.dns.bench;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.AllEndpointsPlanner;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.state.Snapshot;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.response.Responder;
import io.sluice.dns.response.ResponderSettings;
import io.sluice.dns.response.Transport;
import io.sluice.dns.zone.ZoneCompiler;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.xbill.DNS.CookieOption;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.OPTRecord;
import org.xbill.DNS.Record;
import org.xbill.DNS.Section;
import org.xbill.DNS.Type;

/**
 * The responder's cost per query for one static name (an EDNS query from one UDP client) with the
 * abuse defences off and on: {@code off}; {@code rrl-pass} (rate limiting in log-only mode, so
 * every query is charged to its bucket and answered); {@code rrl-limited} (the default limits,
 * which a single client sending millions a second is over: charged and dropped); {@code cookie}
 * (cookies on, the query presents a valid server cookie: checked and sent back; rate limiting on,
 * and skipped for it). Run: {@code bench/jmh.sh EdgeBenchmark}.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class EdgeBenchmark {
  @Param({"off", "rrl-pass", "rrl-limited", "cookie"})
  public String mode;

  private Responder responder;
  private byte[] buffer;
  private int length;
  private InetAddress client;

  @Setup
  public void setUp() throws Exception {
    Path dir = Files.createTempDirectory("sluice-bench");
    String dns =
        switch (mode) {
          case "off" -> "{}";
          case "rrl-pass" -> "{ rrl: { enabled: true, logOnly: true } }";
          case "rrl-limited" -> "{ rrl: { enabled: true } }";
          case "cookie" -> "{ rrl: { enabled: true }, cookies: { enabled: true } }";
          default -> throw new IllegalArgumentException(mode);
        };
    String yaml =
        """
        dns: %s
        stateDir: state
        zones:
          - origin: example.com.
            soa: { mname: ns1.example.com., rname: hostmaster.example.com., serial: 1 }
            ns: [ns1.example.com.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: www, type: A, data: 192.0.2.80 }
        """
            .formatted(dns);
    SluiceConfig config = ConfigLoader.parse(yaml, "bench.yaml", dir);
    responder =
        new Responder(
            ZoneCompiler.compile(config, "bench"),
            ResponderSettings.of(config, "bench"),
            new AllEndpointsPlanner(new SnapshotStore(Snapshot.initial(config))),
            GslbMetrics.NOOP);
    client = InetAddress.getByName("192.0.2.7");
    byte[] q = query(new CookieOption(new byte[] {1, 2, 3, 4, 5, 6, 7, 8}));
    if (mode.equals("cookie")) {
      // The cookie this server hands out, presented as a returning client presents it.
      Message first = new Message(responder.respond(q, q.length, client, Transport.UDP));
      q = query(first.getOPT().getOptions(org.xbill.DNS.EDNSOption.Code.COOKIE).get(0));
    }
    buffer = Arrays.copyOf(q, 65536);
    length = q.length;
  }

  private static byte[] query(org.xbill.DNS.EDNSOption option) throws Exception {
    Message m =
        Message.newQuery(Record.newRecord(Name.fromString("www.example.com."), Type.A, DClass.IN));
    m.addRecord(new OPTRecord(1232, 0, 0, 0, List.of(option)), Section.ADDITIONAL);
    return m.toWire();
  }

  @Benchmark
  public byte[] respond() {
    return responder.respond(buffer, length, client, Transport.UDP);
  }
}
