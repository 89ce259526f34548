#!/usr/bin/env bash
# Failover timing against real HTTP backends: how long until a dead backend leaves the answers,
# and until it is back after it returns.
#   failover.sh gdnsd|pdns default|tuned    (multifo + http_status; LUA ifurlup)
#   failover.sh sluice default              (Sluice's own defaults, SLUICE_FAILOVER_START)
# Starts the backends 127.0.0.11-13 (backends.sh) and the server, whose fo.example.test is
# health-checked over them, waits until the answer holds all three, then CYCLES times (3; 1 for
# gdnsd's defaults, about 5 minutes a cycle): kills 127.0.0.12, polls fo.example.test with dig
# every 100 ms until the answer no longer holds it, restarts it and polls until it is back.
# Prints: FAILOVER <server> <profile> detect_s=<s,...> recover_s=<s,...> settings="..."
# The server is stopped at the end; the backends keep running (backends.sh stop, stop-all.sh).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
srv=${1:-} profile=${2:-}
victim=127.0.0.12
case "$srv/$profile" in
  gdnsd/default) settings="http_status interval=10 timeout=5 down_thresh=10 ok_thresh=10 up_thresh=20 (gdnsd defaults)" ;;
  gdnsd/tuned) settings="http_status interval=2 timeout=1 down_thresh=1 ok_thresh=1 up_thresh=1" ;;
  pdns/default) settings="lua-health-checks-interval=5 ifurlup timeout=2 (default) cache-ttl=${PDNS_CACHE_TTL:-20}" ;;
  pdns/tuned) settings="lua-health-checks-interval=1 ifurlup timeout=2 (default) cache-ttl=${PDNS_CACHE_TTL:-20}" ;;
  sluice/default) settings="Sluice defaults (docs/health.md)" ;;
  *) echo "usage: $0 gdnsd|pdns default|tuned, or $0 sluice default" >&2; exit 2 ;;
esac
max_wait=$([ "$profile" = default ] && echo 420 || echo 90) # seconds, bounds every wait
port=$(port_of "$srv")
now() { date +%s.%N; }
since() { awk -v a="$(now)" -v b="$1" 'BEGIN { printf "%.1f", a - b }'; }
within() { awk -v a="$(now)" -v b="$1" -v m="$max_wait" 'BEGIN { exit !(a - b < m) }'; }
answer() { dig +time=1 +tries=1 +short @"$ADDR" -p "$port" fo.example.test A 2>/dev/null | sort | tr '\n' ' '; }

"$PEERS_DIR/backends.sh" start
if [ "$srv" = sluice ]; then
  SLUICE_START="$SLUICE_FAILOVER_START" "$PEERS_DIR/start-sluice.sh" >/dev/null
else
  HEALTH=$profile "$PEERS_DIR/start-$srv.sh" >/dev/null
fi
trap 'stop_server "$srv"' EXIT

# steady state: five answers in a row with all three backends
t=$(now) ok=0
while within "$t" && [ "$ok" -lt 5 ]; do
  case "$(answer)" in *127.0.0.11*127.0.0.12*127.0.0.13*) ok=$((ok + 1)) ;; *) ok=0 ;; esac
  sleep 0.1
done
[ "$ok" -ge 5 ] || { echo "FAILOVER $srv $profile error=never-all-up"; exit 1; }

cycles=${CYCLES:-$([ "$srv/$profile" = gdnsd/default ] && echo 1 || echo 3)}
detects="" recovers=""
for _ in $(seq 1 "$cycles"); do
  sleep "1.$((RANDOM % 10))" # out of phase with the health-check interval
  t0=$(now)
  "$PEERS_DIR/backends.sh" stop "$victim"
  detect=NA
  while within "$t0"; do
    a=$(answer)
    if [ -n "$a" ] && [[ "$a" != *"$victim"* ]]; then detect=$(since "$t0"); break; fi
    sleep 0.1
  done
  sleep "1.$((RANDOM % 10))"
  t1=$(now)
  "$PEERS_DIR/backends.sh" start "$victim"
  recover=NA
  while within "$t1"; do
    if [[ "$(answer)" == *"$victim"* ]]; then recover=$(since "$t1"); break; fi
    sleep 0.1
  done
  detects="$detects${detects:+,}$detect" recovers="$recovers${recovers:+,}$recover"
done
stop_server "$srv"
echo "FAILOVER $srv $profile detect_s=$detects recover_s=$recovers settings=\"$settings\""
