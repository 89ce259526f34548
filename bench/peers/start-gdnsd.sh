#!/usr/bin/env bash
# Starts gdnsd on 127.0.0.1:PORT_BASE+3: www with the weighted plugin, geo with a nets-only geoip
# map honouring ECS, fo with multifo over the HTTP backends. Env: THREADS (udp_threads), CPUS,
# HEALTH=default|tuned (http_status timing of fo).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
case "$HEALTH" in
  default) H_INTERVAL=10 H_TIMEOUT=5 H_DOWN=10 H_OK=10 H_UP=20 ;; # gdnsd's documented defaults
  tuned) H_INTERVAL=2 H_TIMEOUT=1 H_DOWN=1 H_OK=1 H_UP=1 ;;       # 2 s is gdnsd 3.8's minimum
  *) echo "HEALTH must be default or tuned" >&2; exit 2 ;;
esac
prepare_server gdnsd
mkdir -p "$RUN/etc/zones" "$RUN/run" "$RUN/state"
cat "$CONF_DIR/zone-common.zone" "$CONF_DIR/zone-dyn-gdnsd.zone" | grep -v '^\$ORIGIN' \
  >"$RUN/etc/zones/example.test"
render "$CONF_DIR/gdnsd.config.in" "$RUN/etc/config"
start_server gdnsd gdnsd -c "$RUN/etc" start
echo "gdnsd pid $(cat "$RUN/pid") port $PORT udp_threads $THREADS cpus $CPUS health $HEALTH"
