#!/usr/bin/env bash
# Starts Sluice for the peer benchmark (the SLUICE_START contract of bench/peers/start-sluice.sh):
#   bench/start-sluice.sh PORT THREADS RUNDIR
# writes RUNDIR/sluice.yaml serving example.test (the static records of the peers' common zone,
# plus www and geo as GSLB services) and execs Sluice in the foreground on 127.0.0.1:PORT.
# The admin API listens on an ephemeral loopback port (so a running example on 8053 does not
# clash) and all state (journal, audit log, verdicts) stays under RUNDIR.
# Build the jar beforehand (mvn -B -q -DskipTests package): the harness waits only 60 s for the
# first answer. SLUICE_JAVA_OPTS passes extra JVM options (for example a JFR recording). With
# DOH_PORT set, DNS over HTTPS listens on 127.0.0.1:DOH_PORT too (bench/doh-bench.sh). RRL, when
# set, turns response rate limiting on with those settings (e.g. RRL='logOnly: false').
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_args "$@"

cat >"$rundir/sluice.yaml" <<'YAML'
# Benchmark zone: the static data every peer serves, plus two GSLB services.
#   www: 192.0.2.1, .2, .3 with weights 3, 2, 1
#   geo: clients in 10.1/16 -> dc1, 10.2/16 -> dc2, 10.3/16 -> dc3, then the others in order;
#        other clients dc1
dns:
  listen: [127.0.0.1]
  udpPayloadSize: 1232
admin:
  listen: 127.0.0.1
regions:
  r1: { proximity: [r2, r3] }
  r2: { proximity: [r3, r1] }
  r3: { proximity: [r1, r2] }
topology:
  defaultRegion: r1
  networks:
    - { cidr: 10.1.0.0/16, region: r1 }
    - { cidr: 10.2.0.0/16, region: r2 }
    - { cidr: 10.3.0.0/16, region: r3 }
pools:
  w1: { endpoints: [ { address: 192.0.2.1 } ] }
  w2: { endpoints: [ { address: 192.0.2.2 } ] }
  w3: { endpoints: [ { address: 192.0.2.3 } ] }
  dc1: { region: r1, endpoints: [ { address: 198.51.100.1 } ] }
  dc2: { region: r2, endpoints: [ { address: 198.51.100.2 } ] }
  dc3: { region: r3, endpoints: [ { address: 198.51.100.3 } ] }
zones:
  - origin: example.test.
    ttl: 300
    soa:
      mname: ns1.example.test.
      rname: hostmaster.example.test.
      serial: 2024010101
      refresh: 7200
      retry: 1800
      expire: 1209600
      minimum: 300
    ns: [ns1.example.test., ns2.example.test.]
    records:
      - { name: "@", type: MX, data: "10 mail.example.test." }
      - { name: ns1, type: A, data: 192.0.2.53 }
      - { name: ns2, type: A, data: 192.0.2.54 }
      - { name: mail, type: A, data: 192.0.2.25 }
      - { name: static, type: A, data: 192.0.2.10 }
      - { name: static6, type: AAAA, data: "2001:db8::10" }
      - { name: txt, type: TXT, data: '"v=spf1 -all"' }
    services:
      - name: www
        ttl: 60
        chain: [healthy, weighted]
        pools: [ { pool: w1, weight: 3 }, { pool: w2, weight: 2 }, { pool: w3, weight: 1 } ]
      - name: geo
        ttl: 60
        chain: [healthy, geo, weighted]
        pools: [ { pool: dc1 }, { pool: dc2 }, { pool: dc3 } ]
YAML
if [ -n "${DOH_PORT:-}" ]; then
  # Inserted under dns: (its first key is listen).
  sed -i "s|^  listen: \[127.0.0.1\]$|&\n  https: { listen: [127.0.0.1], port: $DOH_PORT }|" "$rundir/sluice.yaml"
fi

if [ -n "${RRL:-}" ]; then
  sed -i "s/^  udpPayloadSize: 1232\$/&\n  rrl: { $RRL }/" "$rundir/sluice.yaml"
fi

exec_sluice
