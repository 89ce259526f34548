#!/usr/bin/env bash
# Starts NSD on 127.0.0.1:PORT_BASE+2 with www and geo as plain records. Env: THREADS
# (server-count), CPUS.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
prepare_server nsd
cat "$CONF_DIR/zone-common.zone" "$CONF_DIR/zone-dyn-static.zone" >"$RUN/example.test.zone"
render "$CONF_DIR/nsd.conf.in" "$RUN/nsd.conf"
start_server nsd nsd -d -c "$RUN/nsd.conf"
echo "nsd pid $(cat "$RUN/pid") port $PORT server-count $THREADS cpus $CPUS"
