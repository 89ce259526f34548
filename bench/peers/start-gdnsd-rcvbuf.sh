#!/usr/bin/env bash
# gdnsd with a 1 MiB receive buffer (udp_rcvbuf, the most gdnsd accepts) on 127.0.0.1:PORT_BASE+7,
# so that it loses no query at the load generator's ceiling either; Env as start-gdnsd.sh.
GDNSD_RCVBUF="${GDNSD_RCVBUF:-1048576}" exec "$(dirname "${BASH_SOURCE[0]}")/start-gdnsd.sh" "$@"
