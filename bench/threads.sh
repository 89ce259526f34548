#!/usr/bin/env bash
# How QPS and CPU per query scale with dns.threads (docs/benchmark.md, "Event loops"):
#   bench/threads.sh RUNDIR PORT [SECONDS] [KIND] [THREADS...]
# For each thread count (default: 1 2) starts Sluice with bench/start-sluice.sh on 127.0.0.1:PORT,
# gives it WARMUP (5) seconds of unrecorded load, then runs bench/dnsperf.sh for SECONDS (20) of
# KIND (static) and prints QPS, lost queries, average latency, the server's CPU per answered query
# (utime+stime from /proc, all threads) and how that CPU split over the DNS event loops
# (threads named sluice-dns-*: the native UDP loops, sluice-dns-udp-*, and the event loops),
# with the load average. CLIENTS and OUTSTANDING pass to dnsperf.
# Build the jar beforehand (mvn -B -q -DskipTests package).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 RUNDIR PORT [SECONDS] [KIND] [THREADS...]" >&2
  exit 2
fi
rundir=$1 port=$2 seconds=${3:-20} kind=${4:-static}
shift $(($# < 4 ? $# : 4))
counts=(1 2)
[ $# -gt 0 ] && counts=("$@")
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
hz=$(getconf CLK_TCK)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null || true' EXIT

ticks() { "$bench/peers/cpu.py" tree "$1"; }
# loop_ticks PID: "name@tid=ticks" of every DNS loop thread of PID (the kernel cuts names to 15
# characters, so two native loops are both "sluice-dns-udp-": the thread ID tells them apart).
loop_ticks() {
  local t
  for t in /proc/"$1"/task/*; do
    if grep -q '^sluice-dns-\([0-9]\|udp\)' "$t/comm" 2>/dev/null; then
      awk -v n="$(cat "$t/comm")@${t##*/}" '{sub(/^.*\) /, ""); print n "=" $12 + $13}' "$t/stat"
    fi
  done | sort
}

printf 'threads\tqps\tlost\tavg_latency_ms\tcpu_us_per_query\tper_loop_cpu_share\tloadavg\n'
for threads in "${counts[@]}"; do
  mkdir -p "$rundir/t$threads"
  "$bench/start-sluice.sh" "$port" "$threads" "$rundir/t$threads" >"$rundir/t$threads/log" 2>&1 &
  server=$!
  for _ in $(seq 1 600); do
    # dig +short prints its errors on stdout too: wait for the address itself.
    dig @127.0.0.1 -p "$port" +short +time=1 +tries=1 static.example.test A 2>/dev/null \
      | grep -qx '192\.0\.2\.10' && break
    kill -0 "$server" 2>/dev/null || { echo "sluice exited; see $rundir/t$threads/log" >&2; exit 1; }
    sleep 0.1
  done
  "$bench/dnsperf.sh" "$port" "${WARMUP:-5}" "$kind" >/dev/null 2>&1 || true
  loops0=$(loop_ticks "$server")
  t0=$(ticks "$server")
  "$bench/dnsperf.sh" "$port" "$seconds" "$kind" >"$rundir/t$threads/dnsperf.txt" 2>&1
  t1=$(ticks "$server")
  loops1=$(loop_ticks "$server")
  load=$(cut -d' ' -f1-3 /proc/loadavg)
  kill "$server" && wait "$server" 2>/dev/null || true
  server=""
  out="$rundir/t$threads/dnsperf.txt"
  completed=$(awk '/Queries completed:/ {print $3}' "$out")
  lost=$(awk '/Queries lost:/ {print $3}' "$out")
  qps=$(awk '/Queries per second:/ {print $4}' "$out")
  latency=$(awk '/Average Latency/ {printf "%.2f", $4 * 1000}' "$out")
  cpu=$(awk -v t=$((t1 - t0)) -v hz="$hz" -v q="$completed" 'BEGIN {printf "%.2f", t / hz * 1e6 / q}')
  # Each loop's share of the loops' CPU during the measured run.
  shares=$(join -t= <(echo "$loops0") <(echo "$loops1") \
    | awk -F= '{d[$1] = $3 - $2; s += $3 - $2} END {for (n in d) printf "%s%.0f%%", (c++ ? " " : ""), s ? 100 * d[n] / s : 0}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$threads" "$qps" "$lost" "$latency" "$cpu" "$shares" "$load"
done
