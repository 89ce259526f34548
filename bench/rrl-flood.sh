#!/usr/bin/env bash
# Response rate limiting under a single-source flood, with a second client alongside:
#   bench/rrl-flood.sh PORT RUNDIR [SECONDS] [RATE]
# Starts the benchmark node (bench/start-sluice.sh, one thread) on 127.0.0.1:PORT with rate
# limiting on at its defaults (200 answers a second per /24, name and type; slip 2), warms it up
# from 127.0.2.1, then for SECONDS (default 10) floods it from 127.0.0.1 with dnsperf at RATE
# queries a second (default 100000) for static.example.test A, while a second client on
# 127.0.1.1 (another /24) asks the same name with dig, one query at a time, up to ten a second,
# retrying a lost query up to twice as a resolver would. Reports what the flood got (from dnsperf
# and the node's counters: answered in full, truncated, dropped by the limit, lost in the kernel
# receive buffer) and what the second client got. THREADS sets the node's event loops (default
# 1). Loopback only; build the jar first (mvn -B -q -DskipTests package).
set -euo pipefail
port=${1:?usage: $0 PORT RUNDIR [SECONDS] [RATE]}
rundir=${2:?usage: $0 PORT RUNDIR [SECONDS] [RATE]}
seconds=${3:-10}
rate=${4:-100000}
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
for tool in dnsperf dig curl; do
  command -v $tool >/dev/null || { echo "$tool is not installed" >&2; exit 2; }
done
rm -rf "$rundir"
mkdir -p "$rundir"
RRL='logOnly: false' "$here/start-sluice.sh" "$port" "${THREADS:-1}" "$rundir" >"$rundir/sluice.log" 2>&1 &
node=$!
trap 'kill $node 2>/dev/null || true' EXIT
for _ in $(seq 120); do
  [ -f "$rundir/state/node.properties" ] && dig +short +tries=1 +time=1 -p "$port" @127.0.0.1 \
    static.example.test A >/dev/null 2>&1 && break
  sleep 0.5
done
url=$(sed -n 's/^url=//p' "$rundir/state/node.properties")
token=$(head -1 "$rundir/state/admin.token")
echo "static.example.test A" >"$rundir/queries"

# The counters of the node, one "name value" line each.
counters() {
  curl -sf -H "Authorization: Bearer $token" "$url/metrics" | awk '
    /^sluice_dns_requests_total\{/ && /transport="udp"/ { n += $2 }
    /^sluice_dns_rrl_limited_total\{kind="answer"\}/ { print "limited", $2 }
    /^sluice_dns_rrl_slipped_total\{kind="answer"\}/ { print "slipped", $2 }
    /^sluice_dns_rrl_dropped_total\{kind="answer"\}/ { print "dropped", $2 }
    /^sluice_dns_dropped_total\{reason="receive_buffer"\}/ { print "kernel", $2 }
    END { print "received", n }'
}
value() { awk -v k="$1" '$1 == k { printf "%d", $2 }' <<<"$2"; }

# JIT warm-up from a /24 of its own, so the flooder's bucket starts fresh.
dnsperf -a 127.0.2.1 -s 127.0.0.1 -p "$port" -d "$rundir/queries" -l 5 -c 4 -q 2000 -t 1 \
  >/dev/null 2>&1 || true
sleep 1
before=$(counters)

# One query of the second client: full, truncated or lost.
ask() {
  local out
  out=$(dig -b 127.0.1.1 -p "$port" @127.0.0.1 +tries=1 +time=1 +ignore static.example.test A \
    2>/dev/null) || { echo lost; return; }
  if grep -q "flags:[^;]* tc" <<<"$out"; then
    echo truncated
  elif grep -q "status: NOERROR" <<<"$out" &&
    grep -q "^static.example.test\..*IN[[:space:]]*A[[:space:]]*192.0.2.10" <<<"$out"; then
    echo full
  else
    echo lost
  fi
}

second() {
  local asked=0 first=0 retried=0 truncated=0 lost=0 r try
  local end=$((SECONDS + seconds))
  while [ $SECONDS -lt $end ]; do
    asked=$((asked + 1))
    for try in 1 2 3; do
      r=$(ask)
      [ "$r" = lost ] || break
    done
    case "$r/$try" in
      full/1) first=$((first + 1)) ;;
      full/*) retried=$((retried + 1)) ;;
      truncated/*) truncated=$((truncated + 1)) ;;
      *) lost=$((lost + 1)) ;;
    esac
    sleep 0.1
  done
  echo "$asked $first $retried $truncated $lost" >"$rundir/second"
}
second &
second_pid=$!
dnsperf -a 127.0.0.1 -s 127.0.0.1 -p "$port" -d "$rundir/queries" -l "$seconds" -Q "$rate" \
  -c 8 -q 60000 -t 1 >"$rundir/flood.txt" 2>&1 || true
wait $second_pid
after=$(counters)
read -r asked first retried truncated lost <"$rundir/second"

sent=$(awk '/Queries sent:/ { print $3 }' "$rundir/flood.txt")
replies=$(awk '/Queries completed:/ { print $3 }' "$rundir/flood.txt")
# The second client's queries that reached the node are not the flood's (about: a retried query
# may have reached it and been answered too late).
received=$(($(value received "$after") - $(value received "$before") - first - retried - truncated))
limited=$(($(value limited "$after") - $(value limited "$before")))
slipped=$(($(value slipped "$after") - $(value slipped "$before")))
dropped=$(($(value dropped "$after") - $(value dropped "$before")))
kernel=$(($(value kernel "$after") - $(value kernel "$before")))
answered=$((received - limited))
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf 'flood from 127.0.0.1: offered %d/s, sent %d in %d s (%d/s); replies %d\n' \
  "$rate" "$sent" "$seconds" $((sent / seconds)) "$replies"
printf '  received by the node %d: answered in full %d (%.2f%%, %d/s), truncated %d, dropped %d;' \
  "$received" "$answered" "$(awk -v a=$answered -v r=$received 'BEGIN { print r ? 100 * a / r : 0 }')" \
  $((answered / seconds)) "$slipped" "$dropped"
printf ' lost in the kernel receive buffer %d\n' "$kernel"
printf 'second client from 127.0.1.1: asked %d; answered in full %d (%d at once, %d on a retry),' \
  "$asked" $((first + retried)) "$first" "$retried"
printf ' truncated %d, unanswered after 3 tries %d\n' "$truncated" "$lost"
