package io.sluice.it;

/**
 * The configuration of a node with one service over two pools, {@code primary} and {@code standby},
 * each one endpoint checked by a fast full-link HTTP check of a real local backend: the shape of
 * the end-to-end tests of shifts and verdicts.
 */
final class PrimaryStandbyConfig {
  private PrimaryStandbyConfig() {}

  /**
   * A node serving {@code service}.example.test. from {@code primaryAddress} (checked on {@code
   * primaryPort}) and {@code standbyAddress} (on {@code standbyPort}) by priority, with {@code
   * traffic} as the service's traffic block (YAML lines indented by two spaces).
   */
  static String yaml(
      String service,
      String primaryAddress,
      int primaryPort,
      String standbyAddress,
      int standbyPort,
      String traffic) {
    return """
        dns: { listen: [127.0.0.1], port: 0, threads: 1 }
        admin: { listen: 127.0.0.1, port: 0 }
        stateDir: state
        pools:
          primary:
        %s
          standby:
        %s
        zones:
          - origin: example.test.
            soa: { mname: ns1.example.test., rname: h.example.test. }
            ns: [ns1.example.test.]
            records:
              - { name: ns1, type: A, data: 192.0.2.53 }
            services:
              - name: %s
                ttl: 60
                pools: [primary, standby]
                chain: [healthy, priority]
                traffic:
        %s
        """
        .formatted(
            pool(primaryAddress, primaryPort),
            pool(standbyAddress, standbyPort),
            service,
            traffic.stripIndent().strip().indent(10).stripTrailing());
  }

  /**
   * The body of a pool of one endpoint at {@code address}, checked by a fast full-link HTTP check
   * of a real backend on {@code port} (YAML lines indented by four spaces, under the pool's name).
   */
  static String pool(String address, int port) {
    return """
            health:
              fullLink: { type: http, port: %d, path: /ready, interval: 200ms, timeout: 1s }
              downAfter: 2
              upAfter: 1
              attempts: 1
              fastRecheck: 100ms
              cooldown: 0s
            endpoints: [ { name: a, address: %s } ]
        """
        .formatted(port, address)
        .stripTrailing();
  }
}
