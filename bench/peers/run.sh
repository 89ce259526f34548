#!/usr/bin/env bash
# Side by side on one machine: Knot, NSD, gdnsd, PowerDNS and Sluice on loopback, the same dnsperf
# query files for each, server CPU per query from /proc (docs/benchmark.md).
#   bench/peers/run.sh
# Environment (defaults in brackets):
#   SERVERS       [knot nsd gdnsd gdnsd-rcvbuf pdns pdns-shared sluice]; also sluice-base: another
#                 build of Sluice, started by SLUICE_BASE_START (that checkout's bench/start-sluice.sh)
#   VARIANTS      [shared pinned]  shared: THREADS=2 on every CPU, dnsperf unpinned;
#                                  pinned: the server with 1 thread on CPU 1, dnsperf on CPU 0
#   KINDS         [static www geo geo-subnets mix]  (PowerDNS also gets wr)
#   DURATION      [20]  seconds per measured dnsperf run
#   WARMUP        [5]   seconds of unrecorded mixed load every server gets first; 0: none
#   CLIENTS, OUTSTANDING [20, 500]  dnsperf -c and -q
#   QPS           [unset]  a fixed rate for every measured run (dnsperf -Q), as many independent
#                 resolvers send, instead of as fast as the answers come back (the ceiling)
#   ORDER         [kind]  kind: every server started at once, each kind run on every server in
#                 turn (a ratio compares runs seconds apart); server: one server at a time with
#                 all its kinds (the order before 2026-12-01)
#   FAILOVER      [tuned]  tuned: failover timing of gdnsd and PowerDNS with tuned checks and of
#                 Sluice with its defaults; all: also the peers' defaults (about 6 more
#                 minutes); none
#   PORT_BASE     [5300]  servers on PORT_BASE+1..+8; BACKEND_PORT [8081] for the backends
#   SLUICE_START, SLUICE_FAILOVER_START  [bench/start-sluice.sh, bench/start-sluice-failover.sh]
#   RESULTS_DIR   [a new folder from mktemp -d]
# Results go to RESULTS_DIR/<UTC time>/: table.md, one dnsperf log per run, runs.tsv (the CPU
# accounting), machine.txt, install.log, failover.txt. summarize.py DIR... compares passes.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
SERVERS="${SERVERS:-knot nsd gdnsd gdnsd-rcvbuf pdns pdns-shared sluice}"
VARIANTS="${VARIANTS:-shared pinned}"
KINDS="${KINDS:-static www geo geo-subnets mix}"
DURATION="${DURATION:-20}"
WARMUP="${WARMUP:-5}"
CLIENTS="${CLIENTS:-20}"
OUTSTANDING="${OUTSTANDING:-500}"
FAILOVER="${FAILOVER:-tuned}"
ORDER="${ORDER:-kind}"
case "$ORDER" in kind | server) ;; *) echo "ORDER must be kind or server" >&2; exit 2 ;; esac
ECS_OPT="8:000118000a0200" # EDNS option 8 (client subnet): IPv4, /24, scope 0, 10.2.0.0
out="${RESULTS_DIR:-$(mktemp -d -t peerbench-results.XXXXXX)}/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
echo "results: $out"
q="$RUN_ROOT/q"

"$PEERS_DIR/install.sh" >"$out/install.log" 2>&1 || { cat "$out/install.log"; exit 1; }
trap '"$PEERS_DIR/stop-all.sh"' EXIT
"$PEERS_DIR/stop-all.sh"
python3 "$PEERS_DIR/gen-queries.py" "$q"
dnsperf_args=(-l "$DURATION" -c "$CLIENTS" -q "$OUTSTANDING" -t 2 -O suppress=timeouts,unexpected)
if [ -n "${QPS:-}" ]; then
  case "$QPS" in *[!0-9]* | 0) echo "QPS must be a positive number of queries a second" >&2; exit 2 ;; esac
  dnsperf_args+=(-Q "$QPS")
fi
{
  echo "date_utc: $(date -u '+%Y-%m-%d %H:%M:%S')"
  echo "commit: $(git -C "$REPO_DIR" describe --always --dirty 2>/dev/null || echo unknown)"
  echo "nproc: $(nproc)"
  echo "cpu_model: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "kernel: $(uname -r)"
  echo "loadavg_at_start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "udp_buffers: net.core.rmem_default $(cat /proc/sys/net/core/rmem_default)" \
    "rmem_max $(cat /proc/sys/net/core/rmem_max) (a server's SO_RCVBUF is capped at rmem_max)"
  echo "warmup_s: $WARMUP (mixed load, unrecorded, every server)"
  echo "order: $ORDER"
  echo "dnsperf_args: ${dnsperf_args[*]} (geo: -E $ECS_OPT; geo-subnets: -B, 1024 ECS subnets;" \
    "pinned: taskset -c 0)"
  dpkg-query -W -f='pkg: ${Package} ${Version}\n' dnsperf knot gdnsd pdns-server nsd
  echo "sluice_start: $SLUICE_START"
  case " $SERVERS " in *" sluice-base "*) echo "sluice_base_start: $SLUICE_BASE_START" \
    "(commit $(git -C "$(dirname "$SLUICE_BASE_START")" describe --always --dirty 2>/dev/null || echo unknown))" ;; esac
} >"$out/machine.txt"
cat "$out/machine.txt"
printf 'variant\tserver\tkind\tlog\tsrv_ticks\tperf_user\tperf_sys\tsys_busy\tsys_total\twall\tthreads\n' \
  >"$out/runs.tsv"

kinds_for() { # PowerDNS also answers wr (pickwrandom)
  case "$1" in pdns | pdns-shared) echo "$KINDS" | sed 's/\bwww\b/www wr/' ;; *) echo "$KINDS" ;; esac
}

# load VARIANT PORT KIND ARGS...: dnsperf with the query file of KIND, pinned in the pinned variant.
load() {
  local variant=$1 port=$2 kind=$3 pin=() input=()
  shift 3
  input=(-d "$q/$kind.txt")
  [ "$variant" = pinned ] && pin=(taskset -c 0)
  case "$kind" in
    geo) input+=(-E "$ECS_OPT") ;;
    geo-subnets) input=(-B -d "$q/geo-subnets.bin") ;;
  esac
  timeout $((DURATION + WARMUP + 30)) "${pin[@]}" dnsperf -s "$ADDR" -p "$port" "${input[@]}" "$@"
}

run_one() { # VARIANT SERVER KIND
  local v=$1 s=$2 k=$3 log pid s0 s1 b0 b1 t0 t1 w0 w1 tu ts
  log="$out/$v-$s-$k.log"
  pid=$(cat "$RUN_ROOT/$s/pid")
  s0=$("$PEERS_DIR/cpu.py" tree "$pid")
  read -r b0 t0 < <("$PEERS_DIR/cpu.py" sys)
  w0=$(date +%s.%N)
  TIMEFORMAT='%U %S'
  { time load "$v" "$(port_of "$s")" "$k" "${dnsperf_args[@]}" >"$log" 2>&1 || true; } 2>"$out/.time"
  s1=$("$PEERS_DIR/cpu.py" tree "$pid")
  read -r b1 t1 < <("$PEERS_DIR/cpu.py" sys)
  w1=$(date +%s.%N)
  read -r tu ts <"$out/.time"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$v" "$s" "$k" "$(basename "$log")" \
    $((s1 - s0)) "$tu" "$ts" $((b1 - b0)) $((t1 - t0)) \
    "$(awk -v a="$w1" -v b="$w0" 'BEGIN { printf "%.2f", a - b }')" "$THREADS" >>"$out/runs.tsv"
  printf '  %-7s %-12s %-11s %s\n' "$v" "$s" "$k" \
    "$(awk '/Queries per second/ { printf "%.0f qps", $4 }' "$log")"
}

start_and_warm() { # VARIANT SERVER
  [ -x "$PEERS_DIR/start-$2.sh" ] || { echo "unknown server $2" >&2; exit 2; }
  HEALTH=tuned "$PEERS_DIR/start-$2.sh" | sed 's/^/# /'
  if [ "$WARMUP" -gt 0 ]; then # the same unrecorded load for every server, before any kind
    load "$1" "$(port_of "$2")" mix -l "$WARMUP" -c "$CLIENTS" -q "$OUTSTANDING" -t 2 \
      -O suppress=timeouts,unexpected >/dev/null 2>&1 || true
  fi
}

for v in $VARIANTS; do
  case "$v" in
    shared) export THREADS=2 CPUS="0-$(($(nproc) - 1))" ;;
    pinned) export THREADS=1 CPUS=1 ;;
    *) echo "unknown variant $v (shared, pinned)" >&2; exit 2 ;;
  esac
  if [ "$ORDER" = server ]; then
    for s in $SERVERS; do
      start_and_warm "$v" "$s"
      for k in $(kinds_for "$s"); do run_one "$v" "$s" "$k"; done
      stop_server "$s"
    done
  else
    # Every server up at once (idle while another is measured), each kind run on every server
    # in turn: the runs a ratio compares are seconds apart, not minutes.
    for s in $SERVERS; do start_and_warm "$v" "$s"; done
    for k in $(for s in $SERVERS; do kinds_for "$s"; done | tr ' ' '\n' | awk '!seen[$0]++'); do
      for s in $SERVERS; do
        case " $(kinds_for "$s") " in *" $k "*) run_one "$v" "$s" "$k" ;; esac
      done
    done
    for s in $SERVERS; do stop_server "$s"; done
  fi
done

if [ "$FAILOVER" != none ]; then
  : >"$out/failover.txt"
  profiles=tuned
  [ "$FAILOVER" = all ] && profiles="tuned default"
  export THREADS=2 CPUS="0-$(($(nproc) - 1))"
  for p in $profiles; do
    for s in gdnsd pdns; do
      case " $SERVERS " in *" $s "*) "$PEERS_DIR/failover.sh" "$s" "$p" | tee -a "$out/failover.txt" || true ;; esac
    done
  done
  case " $SERVERS " in # one profile for Sluice: its defaults
    *" sluice "*) "$PEERS_DIR/failover.sh" sluice default | tee -a "$out/failover.txt" || true ;;
  esac
  "$PEERS_DIR/backends.sh" stop
fi
rm -f "$out/.time"
python3 "$PEERS_DIR/summarize.py" "$out" | tee "$out/table.md"
echo "results in $out"
