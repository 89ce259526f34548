#!/usr/bin/env bash
# Starts gdnsd on 127.0.0.1:PORT_BASE+3: www with the weighted plugin, geo with a nets-only geoip
# map honouring ECS, fo with multifo over the HTTP backends. Env: THREADS (udp_threads), CPUS,
# HEALTH=default|tuned (http_status timing of fo). With GDNSD_RCVBUF=BYTES (4096..1048576, gdnsd's
# range for udp_rcvbuf) it starts as gdnsd-rcvbuf on PORT_BASE+7 with that receive buffer: the
# kernel's default of 208 KiB drops queries at the load generator's ceiling, 1 MiB (the kernel
# doubles it) drops none, as Sluice's 4 MiB default does not.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
case "$HEALTH" in
  default) H_INTERVAL=10 H_TIMEOUT=5 H_DOWN=10 H_OK=10 H_UP=20 ;; # gdnsd's documented defaults
  tuned) H_INTERVAL=2 H_TIMEOUT=1 H_DOWN=1 H_OK=1 H_UP=1 ;;       # 2 s is gdnsd 3.8's minimum
  *) echo "HEALTH must be default or tuned" >&2; exit 2 ;;
esac
srv=gdnsd
[ -n "${GDNSD_RCVBUF:-}" ] && srv=gdnsd-rcvbuf
prepare_server "$srv"
mkdir -p "$RUN/etc/zones" "$RUN/run" "$RUN/state"
cat "$CONF_DIR/zone-common.zone" "$CONF_DIR/zone-dyn-gdnsd.zone" | grep -v '^\$ORIGIN' \
  >"$RUN/etc/zones/example.test"
render "$CONF_DIR/gdnsd.config.in" "$RUN/etc/config"
if [ -n "${GDNSD_RCVBUF:-}" ]; then
  sed -i "s/^  udp_threads => .*/&\n  udp_rcvbuf => $GDNSD_RCVBUF/" "$RUN/etc/config"
fi
start_server "$srv" gdnsd -c "$RUN/etc" start
echo "$srv pid $(cat "$RUN/pid") port $PORT udp_threads $THREADS cpus $CPUS health $HEALTH" \
  "${GDNSD_RCVBUF:+udp_rcvbuf $GDNSD_RCVBUF}"
