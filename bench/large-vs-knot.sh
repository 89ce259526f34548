#!/usr/bin/env bash
# Server CPU per query for random names of the large configuration, Sluice beside Knot on the same
# master file (docs/benchmark.md):
#   bench/large-vs-knot.sh RUNDIR PORT_BASE [RECORDS] [SECONDS] [WARMUP]
# defaults: 1000000 records, 20 s measured, 5 s of unrecorded warm-up per server. Generates the
# configuration with bench/gen-large-config.sh (10,000 services over 200 pools beside the zone),
# gives Knot the same master file with the SOA and NS Sluice adds from its config, and a query file
# of RECORDS names drawn at random (with repeats) from h0..hN-1. Each server runs alone with one
# thread on CPU 1, dnsperf on CPU 0 (-c 20 -q 500); the server's utime + stime from /proc over the
# measured run, divided by the queries answered, is its CPU per query. Knot and dnsperf come from
# Debian (bench/peers/install.sh); build the jar first (SLUICE_JAR picks another). SLUICE_JAVA_OPTS
# passes JVM options. ZONE_SHAPE=delegations (see gen-large-config.sh) asks half A questions of hN,
# a quarter of names below the delegations (referrals with glue) and a quarter MX of mN.
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 RUNDIR PORT_BASE [RECORDS] [SECONDS] [WARMUP]" >&2
  exit 2
fi
rundir=$1 base=$2 records=${3:-1000000} seconds=${4:-20} warmup=${5:-5}
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
jar="${SLUICE_JAR:-$bench/../gslb-dns-server/target/sluice.jar}"
knot_port=$((base + 1)) sluice_port=$((base + 2)) admin_port=$((base + 3))
mkdir -p "$rundir/knot/db"
"$bench/gen-large-config.sh" "$rundir" "$records" 10000 200 0 >/dev/null

# The SOA and NS that sluice.yaml declares, then the master file itself.
{
  echo '$ORIGIN large.test.'
  echo '@ 3600 IN SOA ns1.large.test. hostmaster.large.test. 1 7200 1800 1209600 300'
  echo '@ 3600 IN NS ns1.large.test.'
  echo 'ns1 3600 IN A 192.0.2.53'
  echo 'www 3600 IN A 192.0.2.10'
  cat "$rundir/large.zone"
} >"$rundir/knot/large.test.zone"
cat >"$rundir/knot/knot.conf" <<CONF
server:
    rundir: "$rundir/knot"
    pidfile: "$rundir/knot/knot.pid"
    listen: 127.0.0.1@$knot_port
    udp-workers: 1
    tcp-workers: 1
    background-workers: 1
database:
    storage: "$rundir/knot/db"
log:
  - target: stderr
    any: warning
template:
  - id: default
    storage: "$rundir/knot"
    semantic-checks: off
    journal-content: none
    zonefile-sync: -1
zone:
  - domain: large.test
    file: "$rundir/knot/large.test.zone"
CONF
if [ "${ZONE_SHAPE:-a}" = delegations ]; then
  # Half A questions for hN, a quarter for names below the delegations (referrals), a quarter MX,
  # each drawn from the names the master file has.
  awk -v n="$records" '
    $0 ~ /^h[0-9]+ / { h[nh++] = $1 } $0 ~ /^sub[0-9]+ / { d[nd++] = $1 } $0 ~ /^m[0-9]+ / { m[nm++] = $1 }
    END {
      srand(13)
      for (i = 0; i < n; i++) {
        k = i % 4
        if (k < 2) printf "%s.large.test A\n", h[int(rand() * nh)]
        else if (k == 2) printf "www.%s.large.test A\n", d[int(rand() * nd)]
        else printf "%s.large.test MX\n", m[int(rand() * nm)]
      }
    }' "$rundir/large.zone" >"$rundir/random.queries"
else
  awk -v n="$records" 'BEGIN { srand(13); for (i = 0; i < n; i++) printf "h%d.large.test A\n", int(rand() * n) }' \
    >"$rundir/random.queries"
fi

ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
wait_answer() {
  until [ "$(dig @127.0.0.1 -p "$1" +short +time=1 +tries=1 www.large.test A 2>/dev/null)" = 192.0.2.10 ]; do
    kill -0 "$2" 2>/dev/null || { echo "server $2 exited" >&2; exit 1; }
    sleep 0.2
  done
}
# measure NAME PID PORT: warm-up, then one measured dnsperf run; prints one result line.
measure() {
  local name=$1 pid=$2 port=$3 out="$rundir/$1.dnsperf" t0 t1 done
  if [ "$warmup" -gt 0 ]; then
    taskset -c 0 dnsperf -s 127.0.0.1 -p "$port" -d "$rundir/random.queries" -l "$warmup" \
      -c 20 -q 500 -t 2 >/dev/null 2>&1 || true
  fi
  t0=$(ticks "$pid")
  taskset -c 0 dnsperf -s 127.0.0.1 -p "$port" -d "$rundir/random.queries" -l "$seconds" \
    -c 20 -q 500 -t 2 -O suppress=timeouts,unexpected >"$out" 2>&1
  t1=$(ticks "$pid")
  done=$(awk '/Queries completed:/ { print $3 }' "$out")
  echo "$name: $done queries completed, $(awk '/Queries lost:/ { print $3 }' "$out") lost," \
    "server CPU $(awk -v t=$((t1 - t0)) -v q="$done" -v hz="$(getconf CLK_TCK)" \
      'BEGIN { printf "%.2f", t / hz * 1e6 / q }') us/query," \
    "RSS $(awk '/VmRSS/ { printf "%d MB", $2 / 1024 }' "/proc/$pid/status")," \
    "load $(cut -d' ' -f1 /proc/loadavg)"
}

taskset -c 1 knotd -c "$rundir/knot/knot.conf" >"$rundir/knot/log" 2>&1 &
knot=$!
trap 'kill "$knot" 2>/dev/null || true' EXIT
wait_answer "$knot_port" "$knot"
# knotd sets its own thread affinity: move every thread to CPU 1.
taskset -a -c -p 1 "$knot" >/dev/null
measure knot "$knot" "$knot_port"
kill "$knot"
wait "$knot" 2>/dev/null || true

# shellcheck disable=SC2086 # SLUICE_JAVA_OPTS is a list of options
taskset -c 1 java ${SLUICE_JAVA_OPTS:-} -jar "$jar" run --config "$rundir/sluice.yaml" \
  --port "$sluice_port" --listen 127.0.0.1 --threads 1 --admin-port "$admin_port" \
  --state-dir "$rundir/state" >"$rundir/sluice.log" 2>&1 &
sluice=$!
trap 'kill "$sluice" 2>/dev/null || true' EXIT
wait_answer "$sluice_port" "$sluice"
measure sluice "$sluice" "$sluice_port"
kill "$sluice"
wait "$sluice" 2>/dev/null || true
