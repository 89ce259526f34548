#!/usr/bin/env bash
# DNS over HTTPS against UDP on one Sluice, by server CPU per query (docs/benchmark.md):
#   bench/doh-bench.sh [PORT] [DOH_PORT] [QUERIES] [CONCURRENCY]
# starts bench/start-sluice.sh (1 thread, DoH on DOH_PORT) and sends QUERIES queries for
# static.example.test A each way: dnsperf over UDP (CONCURRENCY outstanding), then h2load over
# HTTP/2 (GET, CONCURRENCY streams on one TLS connection) and over HTTP/1.1 (16 connections).
# Without h2load (Debian package nghttp2-client) the HTTP/2 run uses bench/DohLoad.java, whose JDK
# client, not the server, then limits the rate. Prints for each the rate and the server's CPU per
# query: the whole process, and the threads of that listener alone (sluice-dns / sluice-https),
# with the load average. Defaults: 5306 5443 200000 64.
set -euo pipefail
port=${1:-5306}
doh_port=${2:-5443}
queries=${3:-200000}
concurrency=${4:-64}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
command -v dnsperf >/dev/null || { echo "dnsperf is not installed (apt-get install dnsperf)" >&2; exit 2; }
rundir="$(mktemp -d)"
DOH_PORT=$doh_port "$here/start-sluice.sh" "$port" 1 "$rundir" >"$rundir/sluice.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; wait $pid 2>/dev/null; rm -rf "$rundir"' EXIT
for _ in $(seq 1 120); do
  dig +time=1 +tries=1 +short @127.0.0.1 -p "$port" static.example.test A 2>/dev/null | grep -q . && break
  sleep 0.5
done
tck=$(getconf CLK_TCK)
# CPU ticks (utime+stime) of the process, or of its threads whose name starts with $1.
ticks() {
  local sum=0 t
  for t in /proc/"$pid"/task/*; do
    if [ -z "${1:-}" ] || [[ "$(cat "$t/comm")" == "$1"* ]]; then
      sum=$(( sum + $(awk '{print $14 + $15}' "$t/stat") ))
    fi
  done
  echo "$sum"
}
# measure NAME THREADS COMMAND...: runs COMMAND (which prints "queries N seconds S") and reports.
measure() {
  local name=$1 threads=$2 out p0 t0
  shift 2
  p0=$(ticks) t0=$(ticks "$threads")
  out=$("$@")
  python3 - "$name" "$out" $(( $(ticks) - p0 )) $(( $(ticks "$threads") - t0 )) "$tck" <<'PY'
import sys
name, out, proc, thr, tck = sys.argv[1], sys.argv[2].split(), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
q, s = int(out[1]), float(out[3])
us = lambda t: t * 1e6 / tck / max(q, 1)
print(f"{name:9s} queries {q:7d}  qps {q / s:8.0f}  cpu/query: process {us(proc):5.1f} us, listener threads {us(thr):5.1f} us")
PY
}
echo "static.example.test A" >"$rundir/queries"
udp() {
  dnsperf -s 127.0.0.1 -p "$port" -d "$rundir/queries" -n "$(( $1 ))" -c 4 -q "$concurrency" \
    | awk '/Queries completed/ {q=$3} /Run time/ {s=$4} END {print "queries", q, "seconds", s}'
}
# The query for static.example.test A, ID 0, in base64url.
url="https://127.0.0.1:$doh_port/dns-query?dns=AAAAAAABAAAAAAAABnN0YXRpYwdleGFtcGxlBHRlc3QAAAEAAQ"
h2() { # QUERIES h2load-options...
  local n=$1
  shift
  h2load -n "$n" "$@" "$url" \
    | awk '/^finished in/ {s=$3+0} /^requests:/ {q=$8} END {print "queries", q, "seconds", s}'
}
# Warm-up of both paths and the JIT, not measured.
udp "queries / 4" >/dev/null
measure udp sluice-dns udp "$queries"
if command -v h2load >/dev/null; then
  h2 "$(( queries / 4 ))" -c 1 -m "$concurrency" >/dev/null
  measure doh-h2 sluice-https h2 "$queries" -c 1 -m "$concurrency"
  measure doh-h1.1 sluice-https h2 "$queries" --h1 -c 16 -m 1
else
  echo "h2load is not installed (nghttp2-client): HTTP/2 with bench/DohLoad.java (client-bound)" >&2
  java "$here/DohLoad.java" "${url%%\?*}" 5 "$concurrency" static.example.test >/dev/null
  measure doh-h2 sluice-https java "$here/DohLoad.java" "${url%%\?*}" 20 "$concurrency" static.example.test get
fi
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
