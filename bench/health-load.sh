#!/usr/bin/env bash
# What health checking costs a large configuration (docs/benchmark.md):
#   bench/health-load.sh RUNDIR DNS_PORT ADMIN_PORT HEALTH_PORT [RECORDS SERVICES POOLS]
# Generates bench/gen-large-config.sh's configuration (defaults 1000000 records, 10000 services,
# 200 pools) with HEALTH_PORT set, so every pool is checked (TCP every 2 s, HTTP every 10 s) against
# a python3 http.server this script starts on 127.0.0.1:HEALTH_PORT, starts Sluice from this
# checkout's launcher (SLUICE_ROOT: another checkout's), waits SETTLE seconds (40) after the first
# answer, then prints the process's CPU over SECONDS (30) with no queries, by thread, and dnsperf's
# latency at QPS queries a second (10000) over SECONDS of random service names (the health engine
# republishes every endpoint's figures every 5 s meanwhile). Loopback only.
set -euo pipefail
if [ $# -lt 4 ] || [ $# -gt 7 ]; then
  echo "usage: $0 RUNDIR DNS_PORT ADMIN_PORT HEALTH_PORT [RECORDS SERVICES POOLS]" >&2
  exit 2
fi
run=$1 dns=$2 admin=$3 hport=$4 records=${5:-1000000} services=${6:-10000} pools=${7:-200}
settle=${SETTLE:-40} seconds=${SECONDS_MEASURED:-30} qps=${QPS:-10000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sluice_root=${SLUICE_ROOT:-$(dirname "$here")}
for tool in python3 dnsperf dig; do
  command -v "$tool" >/dev/null || { echo "$0: needs $tool" >&2; exit 2; }
done
mkdir -p "$run/www"
echo ok >"$run/www/index.html"
HEALTH_PORT=$hport "$here/gen-large-config.sh" "$run" "$records" "$services" "$pools" >/dev/null
rm -rf "$run/state"

backend= server=
cleanup() {
  # Each step may fail (already gone, or Sluice's exit status after the signal) without skipping
  # the next one under set -e.
  if [ -n "$server" ]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
  if [ -n "$backend" ]; then kill "$backend" 2>/dev/null || true; fi
  return 0
}
trap cleanup EXIT
python3 -m http.server "$hport" --bind 127.0.0.1 --directory "$run/www" >"$run/backend.log" 2>&1 &
backend=$!

start=$(date +%s%3N)
"$sluice_root/sluice" run --config "$run/sluice.yaml" --port "$dns" --listen 127.0.0.1 \
  --admin-port "$admin" --state-dir "$run/state" >"$run/sluice.log" 2>&1 &
server=$!
until dig @127.0.0.1 -p "$dns" +short +time=1 +tries=1 www.large.test A 2>/dev/null | grep -q '^[0-9]'; do
  kill -0 "$server" 2>/dev/null || { echo "$0: Sluice exited; see $run/sluice.log" >&2; exit 1; }
  sleep 0.2
done
echo "first answer after $(($(date +%s%3N) - start)) ms"
sleep "$settle"

# Clock ticks (utime + stime) of every thread, by name.
ticks() {
  for t in /proc/"$server"/task/*; do
    printf '%s %s %s\n' "${t##*/}" "$(tr ' ' _ <"$t/comm")" "$(awk '{print $14 + $15}' "$t/stat" 2>/dev/null || echo 0)"
  done | sort
}
hz=$(getconf CLK_TCK)
ticks >"$run/ticks.before"
sleep "$seconds"
ticks >"$run/ticks.after"
join "$run/ticks.before" "$run/ticks.after" | awk '{ by[$2] += $5 - $3 } END { for (t in by) print by[t], t }' |
  sort -rn >"$run/ticks.delta"
awk -v hz="$hz" -v s="$seconds" '
  { total += $1; if (NR <= 6 && $1 > 0) top = top sprintf(" %s %.2f s", $2, $1 / hz) }
  END { printf "idle: %.2f s of CPU in %d s (%.1f %% of a core); by thread:%s\n", total / hz, s, 100 * total / hz / s, top }' \
  "$run/ticks.delta"

awk -v n="$services" 'BEGIN { srand(1); for (i = 0; i < 200000; i++) printf "s%d.large.test A\n", int(rand() * n) }' >"$run/queries.txt"
dnsperf -s 127.0.0.1 -p "$dns" -d "$run/queries.txt" -Q "$qps" -l "$seconds" -c 4 -q 200 >"$run/dnsperf.txt" 2>&1
echo "under $qps queries a second: $(grep -E 'Queries lost|Average Latency|Latency StdDev' "$run/dnsperf.txt" | tr -s ' ' | tr '\n' ' ')"
