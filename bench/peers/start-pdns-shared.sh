#!/usr/bin/env bash
# PowerDNS with enable-lua-records=shared (one Lua state per thread) on 127.0.0.1:PORT_BASE+5.
PDNS_LUA=shared exec "$(dirname "${BASH_SOURCE[0]}")/start-pdns.sh" "$@"
