#!/usr/bin/env bash
# Time of a full zone transfer (AXFR) of a large zone from Sluice and from Knot serving the same
# records (docs/benchmark.md):
#   bench/axfr-bench.sh RUNDIR SLUICE_PORT KNOT_PORT [RECORDS] [ROUNDS]
# defaults: 1000000 records, 3 rounds. The zone is bench/gen-large-config.sh's master file with an
# SOA, NS and glue added; both servers listen on 127.0.0.1 and take AXFR from it (Sluice over an
# allow rule, no TSIG, as Knot here). Rounds alternate between the servers; each prints the wall
# time of `kdig AXFR` (the whole transfer read and parsed), the CPU seconds the server spent on it
# (from /proc/PID/stat) and the load average. Build the jar beforehand (mvn -B -q -DskipTests
# package); needs knotd and kdig. SLUICE_JAVA_OPTS passes JVM options.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 RUNDIR SLUICE_PORT KNOT_PORT [RECORDS] [ROUNDS]" >&2
  exit 2
fi
rundir=$1 sport=$2 kport=$3 records=${4:-1000000} rounds=${5:-3}
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="$bench/../gslb-dns-server/target/sluice.jar"
knotd=$(command -v knotd || echo /usr/sbin/knotd)
"$bench/gen-large-config.sh" "$rundir" "$records" 1 2 0 >/dev/null
mkdir -p "$rundir/knot"
{
  echo '$ORIGIN large.test.'
  echo '$TTL 3600'
  echo '@ IN SOA ns1.large.test. hostmaster.large.test. 1 7200 1800 1209600 300'
  echo '@ IN NS ns1.large.test.'
  echo 'ns1 IN A 192.0.2.53'
  tail -n +3 "$rundir/large.zone"
} >"$rundir/knot/large.test.zone"
cat >"$rundir/axfr.yaml" <<YAML
dns: { listen: [127.0.0.1] }
admin: { enabled: false }
stateDir: state
zones:
  - origin: large.test.
    soa: { mname: ns1.large.test., rname: hostmaster.large.test., serial: 1 }
    ns: [ns1.large.test.]
    file: large.zone
    records:
      - { name: ns1, type: A, data: 192.0.2.53 }
    transfer: { allow: [127.0.0.1] }
YAML
cat >"$rundir/knot/knot.conf" <<KNOT
server:
  listen: 127.0.0.1@$kport
  rundir: $rundir/knot
  pidfile: $rundir/knot/knot.pid
database:
  storage: $rundir/knot/db
log:
  - target: stderr
    any: warning
acl:
  - id: local
    address: 127.0.0.1
    action: transfer
zone:
  - domain: large.test.
    file: $rundir/knot/large.test.zone
    acl: local
    journal-content: none
    zonefile-sync: -1
KNOT
# shellcheck disable=SC2086 # SLUICE_JAVA_OPTS is a list of options
java ${SLUICE_JAVA_OPTS:-} -jar "$jar" run --config "$rundir/axfr.yaml" --port "$sport" \
  --listen 127.0.0.1 --state-dir "$rundir/state" >"$rundir/sluice-axfr.log" 2>&1 &
sluice=$!
"$knotd" -c "$rundir/knot/knot.conf" >"$rundir/knot/knotd.log" 2>&1 &
knot=$!
trap 'kill "$sluice" "$knot" 2>/dev/null || true' EXIT
ready() { dig @127.0.0.1 -p "$1" +short +time=1 +tries=1 large.test SOA 2>/dev/null | grep -q '^ns1\.large\.test\. '; }
until ready "$sport" && ready "$kport"; do
  for p in "$sluice" "$knot"; do
    kill -0 "$p" 2>/dev/null || { echo "a server exited; see $rundir/*.log" >&2; exit 1; }
  done
  sleep 0.5
done
cpu() { awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$1/stat"; }
axfr() { # NAME PORT PID
  local c0 c1 t0 t1 n
  c0=$(cpu "$3")
  t0=$(date +%s%N)
  n=$(kdig @127.0.0.1 -p "$2" +tcp +noall +answer large.test AXFR | wc -l)
  t1=$(date +%s%N)
  c1=$(cpu "$3")
  printf '%-6s %8d records  %6d ms  server CPU %5.2f s  load %s\n' "$1" "$n" \
    $(((t1 - t0) / 1000000)) "$(echo "$c1 - $c0" | bc)" "$(cut -d' ' -f1-3 /proc/loadavg)"
}
for r in $(seq 1 "$rounds"); do
  axfr sluice "$sport" "$sluice"
  axfr knot "$kport" "$knot"
done
