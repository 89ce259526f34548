#!/usr/bin/env bash
# Starts Sluice for the failover timing of bench/peers (the SLUICE_FAILOVER_START contract, the
# same as SLUICE_START):
#   bench/start-sluice-failover.sh PORT THREADS RUNDIR
# writes RUNDIR/sluice.yaml serving example.test with static.example.test and the GSLB service
# fo.example.test over the HTTP backends 127.0.0.11-13 port BACKEND_PORT (8081), and execs Sluice in the
# foreground on 127.0.0.1:PORT. fo answers with every healthy backend (all three A records when
# all are up). Health checking uses Sluice's documented defaults (docs/health.md): a heartbeat
# and a full-link check, both HTTP GET / on that port, with default intervals, timeouts,
# thresholds, fast confirmation and cooldown; nothing is tuned for the measurement.
# The admin API listens on an ephemeral loopback port; state stays under RUNDIR.
# Build the jar beforehand (mvn -B -q -DskipTests package): the harness waits only 60 s.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
bench_args "$@"

backend_port=${BACKEND_PORT:-8081}
cat >"$rundir/sluice.yaml" <<YAML
# Failover zone: one static name (the harness's start-up check) and one health-checked service.
dns:
  listen: [127.0.0.1]
admin:
  listen: 127.0.0.1
pools:
  backends:
    health:
      heartbeat: { type: http, port: $backend_port, path: / }
      fullLink: { type: http, port: $backend_port, path: /, expectStatus: [200] }
    endpoints:
      - { name: b1, address: 127.0.0.11 }
      - { name: b2, address: 127.0.0.12 }
      - { name: b3, address: 127.0.0.13 }
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
      - { name: ns1, type: A, data: 192.0.2.53 }
      - { name: ns2, type: A, data: 192.0.2.54 }
      - { name: static, type: A, data: 192.0.2.10 }
    services:
      # no balancing step: the answer is every usable endpoint of the pool
      - name: fo
        ttl: 10
        chain: [healthy]
        pools: [backends]
YAML

exec_sluice
