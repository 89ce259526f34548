#!/usr/bin/env bash
# Counts the queries lost while Sluice restarts with 'sluice run --takeover' (docs/restart.md):
#   bench/restart-loss.sh [PORT] [SECONDS] [RESTARTS]
# Starts a node on 127.0.0.1:PORT (admin on PORT+1) serving bench/sluice-bench.yaml, runs dnsperf
# at a fixed rate (RATE, default 5000 queries/s; CLIENTS 10, OUTSTANDING 200) for SECONDS, and
# meanwhile replaces the node RESTARTS times, each new process taking over from the last one.
# Prints dnsperf's figures and "lost N of M" (goal: 0); exits 1 when a query was lost or a restart
# failed. Defaults: 5306 40 2. Build the jar first (mvn -B -q -DskipTests package).
# MODE=plain restarts the way a plain stop and start does (SIGTERM, then a new process without
# --takeover), for comparison.
set -euo pipefail
port=${1:-5306}
seconds=${2:-40}
restarts=${3:-2}
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/gslb-dns-server/target/sluice.jar"
command -v dnsperf >/dev/null || { echo "dnsperf is not installed (apt-get install dnsperf)" >&2; exit 2; }
[ -f "$jar" ] || { echo "build $jar first: mvn -B -q -DskipTests package" >&2; exit 2; }
work="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
cp "$root/bench/sluice-bench.yaml" "$work/sluice.yaml"
printf 'www.example.test A\ngeo.example.test A\nexample.test SOA\nstatic.example.test A\n' \
  >"$work/queries"

start_node() { # start_node LOG [--takeover]
  local log=$1
  shift
  java -Xmx256m -XX:+UseSerialGC -jar "$jar" run --config "$work/sluice.yaml" --port "$port" \
    --listen 127.0.0.1 --threads 2 --admin-port $((port + 1)) --state-dir "$work/state" "$@" \
    >"$log" 2>&1 &
  pids+=($!)
}

await_line() { # await_line LOG TEXT SECONDS
  for _ in $(seq 1 $(($3 * 10))); do
    grep -q "$2" "$1" && return 0
    sleep 0.1
  done
  echo "no '$2' in $1 after $3 s:" >&2
  tail -20 "$1" >&2
  return 1
}

start_node "$work/node0.log"
await_line "$work/node0.log" "serving 1 zone" 60
dnsperf -s 127.0.0.1 -p "$port" -d "$work/queries" -l "$seconds" -c "${CLIENTS:-10}" \
  -q "${OUTSTANDING:-200}" -Q "${RATE:-5000}" -t 2 >"$work/dnsperf.out" 2>&1 &
perf=$!
status=0
gap=$((seconds / (restarts + 1)))
for i in $(seq 1 "$restarts"); do
  sleep "$gap"
  if [ "${MODE:-takeover}" = plain ]; then
    kill "${pids[$((${#pids[@]} - 1))]}"
    wait "${pids[$((${#pids[@]} - 1))]}" || true
    start_node "$work/node$i.log"
    await_line "$work/node$i.log" "serving 1 zone" 90 || status=1
    echo "restart $i (plain): serving again"
    continue
  fi
  start_node "$work/node$i.log" --takeover
  if ! await_line "$work/node$i.log" "took over" 90; then
    status=1
    break
  fi
  old="${pids[$((${#pids[@]} - 2))]}"
  # The old process drains and exits by itself.
  for _ in $(seq 1 400); do kill -0 "$old" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$old" 2>/dev/null; then
    echo "restart $i: the old process $old did not exit" >&2
    status=1
  else
    echo "restart $i: $(grep -h 'took over' "$work/node$i.log" | cut -c1-24) old pid $old exited"
  fi
done
wait "$perf" || true
grep -E 'Queries (sent|completed|lost)|Response codes|Queries per second' "$work/dnsperf.out"
sent=$(awk '/Queries sent:/ {print $3}' "$work/dnsperf.out")
lost=$(awk '/Queries lost:/ {print $3}' "$work/dnsperf.out")
echo "lost ${lost:-?} of ${sent:-?} queries through $restarts restart(s) (load $(cut -d' ' -f1-3 /proc/loadavg))"
[ "${lost:-1}" = 0 ] || status=1
exit "$status"
