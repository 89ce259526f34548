#!/usr/bin/env bash
# The health-checked HTTP backends of the failover timing: python3 http.server on 127.0.0.11-13,
# port BACKEND_PORT (8081), loopback only.
#   backends.sh start|stop [ADDR...]   (default: all three)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
dir="$RUN_ROOT/backends"
mkdir -p "$dir/www"
echo ok >"$dir/www/index.html"
cmd=${1:-start}
shift || true
for a in ${*:-$BACKEND_ADDRS}; do
  case "$a" in 127.*) ;; *) echo "refusing a backend off loopback: $a" >&2; exit 2 ;; esac
  pidf="$dir/$a.pid"
  case "$cmd" in
    start)
      if [ -f "$pidf" ] && kill -0 "$(cat "$pidf")" 2>/dev/null; then continue; fi
      nohup python3 -m http.server "$BACKEND_PORT" --bind "$a" --directory "$dir/www" \
        >"$dir/$a.log" 2>&1 &
      echo $! >"$pidf"
      for _ in $(seq 1 50); do
        ss -Hlnt "src $a:$BACKEND_PORT" | grep -q . && break
        sleep 0.1
      done
      ;;
    stop)
      [ -f "$pidf" ] || continue
      pid=$(cat "$pidf")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 1 30); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
      done
      rm -f "$pidf"
      ;;
    *) echo "usage: $0 start|stop [ADDR...]" >&2; exit 2 ;;
  esac
done
