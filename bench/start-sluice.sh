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

cp "$root/bench/sluice-bench.yaml" "$rundir/sluice.yaml"
if [ -n "${DOH_PORT:-}" ]; then
  # Inserted under dns: (its first key is listen).
  sed -i "s|^  listen: \[127.0.0.1\]$|&\n  https: { listen: [127.0.0.1], port: $DOH_PORT }|" "$rundir/sluice.yaml"
fi

if [ -n "${RRL:-}" ]; then
  sed -i "s/^  udpPayloadSize: 1232\$/&\n  rrl: { $RRL }/" "$rundir/sluice.yaml"
fi

exec_sluice
