#!/usr/bin/env bash
# Finds a node's overload headroom: offers dnsperf load at rising fixed rates and reports, per
# rate, what was answered, what dnsperf lost and what the node's kernel receive buffers dropped
# (sluice_dns_dropped_total{reason="receive_buffer"}; host-drops: every UDP socket's on the host,
# dnsperf's included), with the node's CPU time per answer. Pin the node and the load generator
# to different cores to see the node saturate before dnsperf does:
#   taskset -c 1 bench/start-sluice.sh 5306 1 /tmp/sluice-bench &
#   taskset -c 0 bench/overload-headroom.sh /tmp/sluice-bench www 8
#   bench/overload-headroom.sh RUNDIR [KIND] [SECONDS] [RATE...]
# RUNDIR is that of a node started by bench/start-sluice.sh (its state directory names the DNS
# address, the admin URL and a token). KIND as for bench/dnsperf.sh (default mix); SECONDS per
# rate (default 10); rates default to 5000 10000 20000 30000 40000 60000 80000 100000.
# OUTSTANDING (default 2000) is dnsperf's -q: enough in flight that dnsperf, not the wait for
# answers, sets the pace.
set -euo pipefail
rundir=${1:?usage: $0 RUNDIR [KIND] [SECONDS] [RATE...]}
kind=${2:-mix}
seconds=${3:-10}
shift $(( $# < 3 ? $# : 3 ))
rates=("$@")
[ ${#rates[@]} -gt 0 ] || rates=(5000 10000 20000 30000 40000 60000 80000 100000)
here="$(dirname "${BASH_SOURCE[0]}")"
props="$rundir/state/node.properties"
[ -f "$props" ] || { echo "no running node recorded in $props" >&2; exit 2; }
pid=$(sed -n 's/^pid=//p' "$props")
url=$(sed -n 's/^url=//p' "$props")
port=$(sed -n 's/^dns=.*://p' "$props")
token=$(head -1 "$rundir/state/admin.token")

drops() {
  curl -sf -H "Authorization: Bearer $token" "$url/metrics" |
    awk '/^sluice_dns_dropped_total\{reason="receive_buffer"\}/ { printf "%d", $2 }'
}
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
# Every UDP socket's receive-buffer drops on this host (the node's and dnsperf's own).
host_drops() { awk '/^Udp: [0-9]/ { print $6 }' /proc/net/snmp; }
hz=$(getconf CLK_TCK)

printf '%9s %9s %9s %9s %7s %12s %10s %14s\n' offered sent answered lost lost% node-drops host-drops \
  "cpu-us/answer"
for rate in "${rates[@]}"; do
  d0=$(drops) c0=$(cpu_ticks) h0=$(host_drops)
  out=$(RATE=$rate CLIENTS=${CLIENTS:-4} OUTSTANDING=${OUTSTANDING:-2000} \
    "$here/dnsperf.sh" "$port" "$seconds" "$kind" 2>&1)
  d1=$(drops) c1=$(cpu_ticks) h1=$(host_drops)
  sent=$(awk '/Queries sent:/ { print $3 }' <<<"$out")
  done_=$(awk '/Queries completed:/ { print $3 }' <<<"$out")
  lost=$(awk '/Queries lost:/ { print $3 }' <<<"$out")
  pct=$(awk '/Queries lost:/ { gsub(/[()%]/, "", $4); print $4 }' <<<"$out")
  us=$(awk -v t=$((c1 - c0)) -v hz="$hz" -v n="$done_" 'BEGIN { printf "%.1f", n ? t / hz * 1e6 / n : 0 }')
  printf '%9s %9s %9s %9s %7s %12s %10s %14s\n' "$rate" "$sent" "$done_" "$lost" "$pct" \
    $((d1 - d0)) $((h1 - h0)) "$us"
done
