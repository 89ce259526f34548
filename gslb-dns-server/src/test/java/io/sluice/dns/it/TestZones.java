package io.sluice.dns.it;

/** The configuration most integration tests serve. */
final class TestZones {
  private TestZones() {}

  /** A small zone (ns1, www and mail with one address each), for tests of the DNS edge. */
  static final String SMALL_ZONE =
      """
      zones:
        - origin: example.test.
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 1 }
          ns: [ns1.example.test.]
          records:
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: www, type: A, data: 192.0.2.80 }
            - { name: mail, type: A, data: 192.0.2.25 }
      """;

  static final String CONFIG =
      """
      dns:
        listen: [127.0.0.1]
        port: 0
        threads: 1
        udpPayloadSize: 1232
        tcpIdleTimeout: 500ms
        tcpMessageTimeout: 500ms
        maxTcpConnections: 64
      pools:
        east:
          endpoints:
            - { name: e1, address: 198.51.100.1 }
            - { name: e6, address: "2001:db8::1" }
        west:
          endpoints:
            - { name: w1, address: 198.51.100.2 }
        alias:
          endpoints:
            - { name: cdn, cname: edge.cdn.example.net. }
      zones:
        - origin: example.test.
          ttl: 3600
          soa: { mname: ns1.example.test., rname: hostmaster.example.test., serial: 7,
                 minimum: 120, ttl: 600 }
          ns: [ns1.example.test., ns2.example.test.]
          records:
            - { name: "@", type: MX, data: "10 mail.example.test." }
            - { name: "@", type: TXT, data: '"v=spf1 -all"' }
            - { name: ns1, type: A, data: 192.0.2.53 }
            - { name: ns2, type: A, data: 192.0.2.54 }
            - { name: mail, type: A, data: 192.0.2.25 }
            - { name: www, type: A, ttl: 300, data: [192.0.2.80, 192.0.2.81] }
            - { name: www, type: AAAA, ttl: 300, data: "2001:db8::80" }
            - { name: blog, type: CNAME, data: www.example.test. }
            - { name: c1, type: CNAME, data: c2.example.test. }
            - { name: c2, type: CNAME, data: www.example.test. }
            - { name: dangling, type: CNAME, data: gone.example.test. }
            - { name: away, type: CNAME, data: www.example.org. }
            - { name: loop1, type: CNAME, data: loop2.example.test. }
            - { name: loop2, type: CNAME, data: loop1.example.test. }
            - { name: to-app, type: CNAME, data: app.example.test. }
            - { name: "*.apps", type: A, data: 192.0.2.90 }
            - { name: "*.apps", type: TXT, data: '"wild"' }
            - { name: real.apps, type: A, data: 192.0.2.91 }
            - { name: x.ent, type: A, data: 192.0.2.92 }
            - { name: _sip._tcp, type: SRV, data: "10 60 5060 sip.example.test." }
            - { name: "@", type: CAA, data: '0 issue "ca.example.net"' }
            - { name: ptr, type: PTR, data: www.example.test. }
            - { name: dev, type: NS, data: [ns1.dev.example.test., ns.example.org.] }
            - { name: ns1.dev, type: A, data: 192.0.2.201 }
            - name: big
              type: TXT
              data: [%s]
          services:
            - { name: app, ttl: 30, pools: [east, west] }
            - { name: cdn, ttl: 20, pools: [alias] }
      """
          .formatted(bigTxt());

  private static String bigTxt() {
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < 40; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append("'\"record number ").append(i).append(" of a large TXT RRset, padded to length\"'");
    }
    return sb.toString();
  }
}
