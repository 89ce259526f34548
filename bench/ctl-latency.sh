#!/usr/bin/env bash
# Keypress to changed answer for `sluice ctl` (docs/cli.md, "Start-up"):
#   bench/ctl-latency.sh RUNDIR DNS_PORT [ROUNDS]
# Starts Sluice with bench/start-sluice.sh on 127.0.0.1:DNS_PORT, then ROUNDS times (default 10)
# launches `./sluice ctl weights set www.example.test … -y`, alternating between a plan that
# answers 192.0.2.2 and one that answers 192.0.2.3, and polls www.example.test every 2 ms from one
# process (bench/answer-change.py) until the answer has changed: the time from launching the
# command to the first changed answer. Also prints the wall time of `./sluice ctl rollback
# www.example.test` (the same start-up and one API call). Prints every round and the median. A
# first ctl run, not counted, writes the launcher's class-data-sharing archive when the package
# step did not; SLUICE_CTL_NO_CDS=1 measures without it.
# Build the jar beforehand (mvn -B -q -DskipTests package).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 RUNDIR DNS_PORT [ROUNDS]" >&2
  exit 2
fi
rundir=$1 port=$2 rounds=${3:-10}
bench="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
sluice="$bench/../sluice"
now_ms() { date +%s%3N; }
# dig +short prints its errors on stdout too: keep only addresses.
answer() { dig @127.0.0.1 -p "$port" +short +time=1 +tries=1 www.example.test A 2>/dev/null | grep -E '^[0-9.]+$' || true; }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

mkdir -p "$rundir"
"$bench/start-sluice.sh" "$port" 1 "$rundir" >"$rundir/log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true' EXIT
admin=""
for _ in $(seq 1 600); do
  admin=$(grep -o 'admin API on 127.0.0.1:[0-9]*' "$rundir/log" | head -1 | cut -d: -f2 || true)
  [ -n "$admin" ] && [ -n "$(answer)" ] && break
  kill -0 "$server" 2>/dev/null || { echo "sluice exited; see $rundir/log" >&2; exit 1; }
  sleep 0.1
done
[ -n "$admin" ] || { echo "sluice did not start; see $rundir/log" >&2; exit 1; }
export SLUICE_ADMIN_URL="http://127.0.0.1:$admin" SLUICE_TOKEN_FILE="$rundir/state/admin.token"
ctl() { "$sluice" ctl "$@" >/dev/null; }

ctl weights set www.example.test w1=0 w2=1 w3=0 -y # also writes the archive when there is none
changes="" walls=""
for i in $(seq 1 "$rounds"); do
  if [ $((i % 2)) -eq 1 ]; then to=192.0.2.3 weights="w1=0 w2=0 w3=1"; else to=192.0.2.2 weights="w1=0 w2=1 w3=0"; fi
  # shellcheck disable=SC2086 # weights is a list of arguments
  change=$("$bench/answer-change.py" "$port" www.example.test "$to" \
    "$sluice" ctl weights set www.example.test $weights -y 2>/dev/null | tail -1)
  t1=$(now_ms)
  ctl rollback www.example.test
  wall=$(($(now_ms) - t1))
  echo "round $i: answer changed after $change ms; ctl rollback took $wall ms"
  changes="$changes$change"$'\n' walls="$walls$wall"$'\n'
done
echo "median: answer changed after $(printf '%s' "$changes" | median) ms;" \
  "ctl rollback $(printf '%s' "$walls" | median) ms"
