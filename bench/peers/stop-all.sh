#!/usr/bin/env bash
# Stops every server and backend the harness started, by the PIDs it recorded.
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
for s in knot nsd gdnsd gdnsd-rcvbuf pdns pdns-shared sluice sluice-base; do stop_server "$s"; done
"$PEERS_DIR/backends.sh" stop 2>/dev/null || true
