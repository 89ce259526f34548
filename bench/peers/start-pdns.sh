#!/usr/bin/env bash
# Starts PowerDNS Authoritative (bind backend, LUA records) on 127.0.0.1:PORT_BASE+4, or with
# PDNS_LUA=shared (one Lua state per thread rather than a fresh one per query) as pdns-shared on
# PORT_BASE+5. Env: THREADS (receiver-threads), CPUS, HEALTH=default|tuned
# (lua-health-checks-interval 5 or 1 s), PDNS_CACHE_TTL (packet and query cache, default 20 s).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
LUAMODE="${PDNS_LUA:-yes}"
srv=pdns
[ "$LUAMODE" = shared ] && srv=pdns-shared
case "$HEALTH" in
  default) H_LUAINT=5 ;; # PowerDNS 4.7's default
  tuned) H_LUAINT=1 ;;
  *) echo "HEALTH must be default or tuned" >&2; exit 2 ;;
esac
H_CACHETTL="${PDNS_CACHE_TTL:-20}"
prepare_server "$srv"
cat "$CONF_DIR/zone-common.zone" "$CONF_DIR/zone-dyn-pdns.zone" >"$RUN/example.test.zone.in"
render "$RUN/example.test.zone.in" "$RUN/example.test.zone"
render "$CONF_DIR/pdns.conf.in" "$RUN/pdns.conf"
render "$CONF_DIR/named.conf.in" "$RUN/named.conf"
start_server "$srv" pdns_server --config-dir="$RUN"
echo "$srv pid $(cat "$RUN/pid") port $PORT lua-records=$LUAMODE receiver-threads $THREADS" \
  "cpus $CPUS health $HEALTH cache-ttl $H_CACHETTL"
