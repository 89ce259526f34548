#!/usr/bin/env bash
# Start-up and reload of a large configuration, with a tight query loop watching for wrong answers
# during the reloads (docs/benchmark.md):
#   bench/reload-bench.sh RUNDIR DNS_PORT ADMIN_PORT [RECORDS] [SERVICES] [POOLS] [RELOADS]
# defaults: 1000000 records, 10000 services, 200 pools, 3 reloads. Generates the configuration
# with bench/gen-large-config.sh, starts Sluice on 127.0.0.1, prints the time from launch to the
# first answer, then starts bench/ReloadWatch.java and reloads RELOADS times with SIGHUP (each
# reload moves every watched name to the next generation), printing the time from the signal to
# the log line of the applied reload, and finally what the query loop saw. Exits non-zero when
# any answer was wrong. SIGHUP rather than the admin API: the API closes a connection that has
# been waiting longer than its read timeout, which a reload of this size can exceed.
# Build the jar beforehand (mvn -B -q -DskipTests package). SLUICE_JAVA_OPTS passes JVM options,
# SLUICE_HEAP the heap cap (the launcher's, 768m). Prints the server's CPU time and resident
# memory (VmRSS, and its peak VmHWM) at the first answer and after each reload.
# CHANGE_ZONE=1 also changes the master file before each reload (one record added, named
# chg<generation>, the one before it removed), so every reload parses the file again; without it
# the file stays the same and a reload reuses the served zone's records (docs/zones.md).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: $0 RUNDIR DNS_PORT ADMIN_PORT [RECORDS] [SERVICES] [POOLS] [RELOADS]" >&2
  exit 2
fi
rundir=$1 port=$2 admin=$3 records=${4:-1000000} services=${5:-10000} pools=${6:-200}
reloads=${7:-3}
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
now_ms() { date +%s%3N; }
# The server's CPU time so far and its resident memory now and at its peak.
usage() {
  echo "server CPU $(awk -v hz="$(getconf CLK_TCK)" '{ printf "%.1f s", ($14 + $15) / hz }' \
    "/proc/$server/stat"), $(awk '/VmRSS|VmHWM/ { printf "%s %d MB ", $1, $2 / 1024 }' \
    "/proc/$server/status")load $(cut -d' ' -f1 /proc/loadavg)"
}

"$bench/gen-large-config.sh" "$rundir" "$records" "$services" "$pools" 0
# Records a CHANGE_ZONE run added to the shared master file are taken out again first.
sed -i '/^chg[0-9]/d' "$rundir/large.zone"
rm -f "$rundir/stop"
start=$(now_ms)
# Through the launcher, so the server runs with the JVM options it gets in production (heap cap).
"$bench/../sluice" run --config "$rundir/sluice.yaml" --port "$port" \
  --listen 127.0.0.1 --admin-port "$admin" --state-dir "$rundir/state" >"$rundir/sluice.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
until [ "$(dig @127.0.0.1 -p "$port" +short +time=1 +tries=1 www.large.test A 2>/dev/null)" = 192.0.2.10 ]; do
  if ! kill -0 "$server" 2>/dev/null; then
    echo "sluice exited; see $rundir/sluice.log" >&2
    exit 1
  fi
  sleep 0.1
done
echo "time to first answer: $(($(now_ms) - start)) ms ($(usage))"

java "$bench/ReloadWatch.java" "$port" "$rundir/stop" >"$rundir/watch.log" 2>&1 &
watch=$!
sleep 3
reloaded() { grep -c 'FileConfigReloader - reload' "$rundir/sluice.log" || true; }
for gen in $(seq 1 "$reloads"); do
  "$bench/gen-large-config.sh" "$rundir" "$records" "$services" "$pools" "$gen" >/dev/null
  if [ -n "${CHANGE_ZONE:-}" ]; then
    sed -i '/^chg[0-9]/d' "$rundir/large.zone"
    echo "chg$gen IN A 192.0.2.$gen" >>"$rundir/large.zone"
  fi
  seen=$(reloaded)
  t0=$(now_ms)
  kill -HUP "$server"
  while [ "$(reloaded)" = "$seen" ]; do
    sleep 0.05
  done
  echo "reload $gen: $(($(now_ms) - t0)) ms ($(usage); $(grep 'FileConfigReloader - reload' "$rundir/sluice.log" | tail -1 | cut -c1-140))"
  sleep 2
done
touch "$rundir/stop"
watched=0
wait "$watch" || watched=$?
echo "query loop during the reloads: $(cat "$rundir/watch.log")"
exit "$watched"
