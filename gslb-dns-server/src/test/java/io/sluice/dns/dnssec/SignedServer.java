package io.sluice.dns.dnssec;

import io.sluice.core.config.ConfigLoader;
import io.sluice.core.config.SluiceConfig;
import io.sluice.core.spi.GslbMetrics;
import io.sluice.core.spi.Ticker;
import io.sluice.core.state.ConfigPublisher;
import io.sluice.core.state.SnapshotStore;
import io.sluice.dns.dnssec.keys.SigningKey;
import io.sluice.dns.dnssec.keys.ZoneKeySource;
import io.sluice.dns.response.ServedZones;
import io.sluice.policy.PolicyPlanner;
import io.sluice.server.app.SluiceNode;
import java.io.ByteArrayInputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.xbill.DNS.DClass;
import org.xbill.DNS.Message;
import org.xbill.DNS.Name;
import org.xbill.DNS.Record;
import org.xbill.DNS.SimpleResolver;
import org.xbill.DNS.dnssec.ValidatingResolver;

/** A real Sluice node serving signed zones with in-memory keys and the real policy planner. */
final class SignedServer implements AutoCloseable {
  final SluiceNode node;
  final SnapshotStore store;
  final ConfigPublisher publisher;

  private SignedServer(SluiceNode node, SnapshotStore store, ConfigPublisher publisher) {
    this.node = node;
    this.store = store;
    this.publisher = publisher;
  }

  static SignedServer start(String yaml, ZoneKeySource keys, Ticker ticker) throws Exception {
    SluiceConfig config = ConfigLoader.parse(yaml, "test.yaml", Path.of("."));
    ConfigPublisher publisher =
        new ConfigPublisher(
            List.of(
                ServedZones.compiler(null, new ZoneSigning(c -> keys, ticker)),
                PolicyPlanner.compiler()));
    SnapshotStore store = new SnapshotStore(publisher.initial(config, "test.yaml"));
    PolicyPlanner planner = new PolicyPlanner(store, GslbMetrics.NOOP);
    return new SignedServer(
        SluiceNode.start(store, publisher, planner, GslbMetrics.NOOP), store, publisher);
  }

  int port() {
    return node.port();
  }

  SimpleResolver plain() {
    SimpleResolver r =
        new SimpleResolver(new InetSocketAddress(InetAddress.getLoopbackAddress(), port()));
    r.setTimeout(Duration.ofSeconds(3));
    return r;
  }

  /** dnsjava's validating resolver in front of this server, trusting {@code anchors}' DNSKEYs. */
  ValidatingResolver validating(SigningKey... anchors) throws Exception {
    ValidatingResolver v = new ValidatingResolver(plain());
    StringBuilder b = new StringBuilder();
    for (SigningKey k : anchors) {
      b.append(k.dnskey()).append('\n');
    }
    v.loadTrustAnchors(new ByteArrayInputStream(b.toString().getBytes(StandardCharsets.US_ASCII)));
    return v;
  }

  static Message query(String name, int type) throws Exception {
    return Message.newQuery(Record.newRecord(Name.fromString(name), type, DClass.IN));
  }

  @Override
  public void close() {
    node.close();
  }
}
