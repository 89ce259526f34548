#!/usr/bin/env bash
# Starts Knot DNS on 127.0.0.1:PORT_BASE+1 with www and geo as plain records (a ceiling for a
# static answer). Env: THREADS (udp-workers), CPUS.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
prepare_server knot
mkdir -p "$RUN/db"
cat "$CONF_DIR/zone-common.zone" "$CONF_DIR/zone-dyn-static.zone" >"$RUN/example.test.zone"
render "$CONF_DIR/knot.conf.in" "$RUN/knot.conf"
start_server knot knotd -c "$RUN/knot.conf" -s "$RUN/knot.sock"
# knotd sets its own thread affinity, ignoring the taskset it was started under: move every thread.
taskset -a -c -p "$CPUS" "$(cat "$RUN/pid")" >/dev/null
echo "knot pid $(cat "$RUN/pid") port $PORT threads $THREADS cpus $CPUS"
