# Shared by the peer benchmark scripts (sourced, not executed). Everything runs on loopback;
# runtime state (rendered configs, PID files, server logs, query files) lives under RUN_ROOT.
PEERS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$PEERS_DIR/../.." && pwd)"
CONF_DIR="$PEERS_DIR/configs"
RUN_ROOT="${RUN_ROOT:-/tmp/peerbench}"
ADDR=127.0.0.1
# One port per server: PORT_BASE + 1 .. + 8 (default 5301-5308).
PORT_BASE="${PORT_BASE:-5300}"
PORT_knot=$((PORT_BASE + 1))
PORT_nsd=$((PORT_BASE + 2))
PORT_gdnsd=$((PORT_BASE + 3))
PORT_pdns=$((PORT_BASE + 4))
PORT_pdns_shared=$((PORT_BASE + 5)) # PowerDNS with enable-lua-records=shared
PORT_sluice=$((PORT_BASE + 6))
PORT_gdnsd_rcvbuf=$((PORT_BASE + 7)) # gdnsd with udp_rcvbuf 1 MiB: no drops at the ceiling
PORT_sluice_base=$((PORT_BASE + 8))  # another build of Sluice, to measure a change against
# How Sluice is started: PORT THREADS RUNDIR, exec in the foreground (see start-sluice.sh).
SLUICE_START="${SLUICE_START:-$REPO_DIR/bench/start-sluice.sh}"
# sluice-base: the SLUICE_START script of another checkout (e.g. a git worktree of the commit
# before a change, built), so it runs that checkout's jar; no default.
SLUICE_BASE_START="${SLUICE_BASE_START:-}"
SLUICE_FAILOVER_START="${SLUICE_FAILOVER_START:-$REPO_DIR/bench/start-sluice-failover.sh}"
# The health-checked HTTP backends of the failover timing: loopback addresses, one port.
BACKEND_ADDRS="127.0.0.11 127.0.0.12 127.0.0.13"
export BACKEND_PORT="${BACKEND_PORT:-8081}"
# THREADS: worker threads of every server; CPUS: the taskset CPU list of the server.
THREADS="${THREADS:-2}"
CPUS="${CPUS:-0-$(($(nproc) - 1))}"
# HEALTH: default|tuned health-check timing of gdnsd and PowerDNS.
HEALTH="${HEALTH:-tuned}"

port_of() { eval echo "\$PORT_${1//-/_}"; }

# render TEMPLATE OUT: substitutes the @NAME@ placeholders of configs/.
render() {
  sed -e "s|@RUN@|$RUN|g" -e "s|@ADDR@|$ADDR|g" -e "s|@PORT@|$PORT|g" \
    -e "s|@THREADS@|$THREADS|g" -e "s|@BPORT@|$BACKEND_PORT|g" \
    -e "s|@INTERVAL@|${H_INTERVAL:-}|g" -e "s|@DOWN@|${H_DOWN:-}|g" \
    -e "s|@OK@|${H_OK:-}|g" -e "s|@UP@|${H_UP:-}|g" -e "s|@TIMEOUT@|${H_TIMEOUT:-}|g" \
    -e "s|@LUAINT@|${H_LUAINT:-}|g" -e "s|@LUAMODE@|${LUAMODE:-yes}|g" \
    -e "s|@CACHETTL@|${H_CACHETTL:-}|g" "$1" >"$2"
}

# port_free PORT: nothing listens on PORT (UDP or TCP).
port_free() {
  ! ss -Hlnu "sport = :$1" | grep -q . && ! ss -Hlnt "sport = :$1" | grep -q .
}

# wait_answer PORT [NAME [TIMEOUT]]: waits until NAME (default static.example.test) gets an A
# answer on PORT; fails after TIMEOUT seconds (default 10).
wait_answer() {
  local port=$1 name=${2:-static.example.test} timeout=${3:-10} end
  end=$(($(date +%s) + timeout))
  until dig +time=1 +tries=1 +short @"$ADDR" -p "$port" "$name" A 2>/dev/null | grep -q '^[0-9]'; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.1
  done
}

# start_server SRV CMD...: starts CMD in the background on the CPUS, logging to RUN/log, records
# its PID in RUN/pid and waits up to START_TIMEOUT seconds (10) for an answer.
start_server() {
  local srv=$1
  shift
  nohup taskset -c "$CPUS" "$@" >"$RUN/log" 2>&1 &
  echo $! >"$RUN/pid"
  if ! wait_answer "$PORT" static.example.test "${START_TIMEOUT:-10}"; then
    echo "$srv did not answer on port $PORT; log:" >&2
    cat "$RUN/log" >&2
    stop_server "$srv"
    return 1
  fi
}

# prepare_server SRV: stops an earlier instance, checks the port, sets PORT and RUN (emptied).
prepare_server() {
  SRV=$1 PORT=$(port_of "$1") RUN="$RUN_ROOT/$1"
  stop_server "$SRV"
  port_free "$PORT" || { echo "port $PORT is busy" >&2; return 1; }
  rm -rf "$RUN"
  mkdir -p "$RUN"
}

# stop_server SRV: stops the server whose PID is in RUN_ROOT/SRV/pid (SIGTERM, SIGKILL after 5 s).
stop_server() {
  local pidf="$RUN_ROOT/$1/pid" pid
  [ -f "$pidf" ] || return 0
  pid=$(cat "$pidf")
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do
      kill -0 "$pid" 2>/dev/null || break
      sleep 0.1
    done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null || true
  fi
  rm -f "$pidf"
}
