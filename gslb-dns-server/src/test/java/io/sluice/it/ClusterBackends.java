package io.sluice.it;

import java.io.IOException;

/**
 * The real HTTP backends of the cluster tests and the configuration body the nodes share: service
 * {@code web} spreads clients by weight over pools {@code blue} and {@code green}; service {@code
 * app} answers from {@code primary} and fails over to {@code standby} as its traffic block says.
 * Every endpoint is checked by every node's own probes (a fast full-link HTTP check, 200 ms apart).
 */
final class ClusterBackends implements AutoCloseable {
  static final String WEB = "web.example.test.";
  static final String APP = "app.example.test.";
  static final String BLUE = "127.0.0.2";
  static final String GREEN = "127.0.0.3";
  static final String PRIMARY = "127.0.0.4";
  static final String STANDBY = "127.0.0.5";

  final Backend blue;
  final Backend green;
  final Backend primary;
  final Backend standby;

  ClusterBackends() throws IOException {
    blue = new Backend(BLUE);
    green = new Backend(GREEN);
    primary = new Backend(PRIMARY);
    standby = new Backend(STANDBY);
  }

  /** The shared configuration body, with {@code appTraffic} as the traffic block of {@code app}. */
  String body(String appTraffic) {
    return SluiceCluster.REGIONS
        + """
        pools:
          blue:
        %s
          green:
        %s
          primary:
        %s
          standby:
        %s
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test., ns2.example.test., ns3.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
              - { name: ns2, type: A, data: 192.0.2.54 }
              - { name: ns3, type: A, data: 192.0.2.55 }
            services:
              - name: web
                ttl: 30
                pools: [blue, green]
                chain: [healthy, weighted]
              - name: app
                ttl: 60
                pools: [primary, standby]
                chain: [healthy, priority]
                traffic:
        %s
        """
            .formatted(
                PrimaryStandbyConfig.pool(BLUE, blue.port()),
                PrimaryStandbyConfig.pool(GREEN, green.port()),
                PrimaryStandbyConfig.pool(PRIMARY, primary.port()),
                PrimaryStandbyConfig.pool(STANDBY, standby.port()),
                appTraffic.stripIndent().strip().indent(10).stripTrailing());
  }

  /** The body with {@code app} in manual mode (no automatic failover). */
  String body() {
    return body("mode: manual");
  }

  @Override
  public void close() {
    blue.close();
    green.close();
    primary.close();
    standby.close();
  }
}
