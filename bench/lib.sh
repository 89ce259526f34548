# Shared by the SLUICE_START scripts (sourced, not executed): argument handling for the
# PORT THREADS RUNDIR contract, and the one way they start Sluice.

# bench_args PORT THREADS RUNDIR: sets port, threads, rundir and root; creates RUNDIR.
bench_args() {
  if [ $# -ne 3 ]; then
    echo "usage: $0 PORT THREADS RUNDIR" >&2
    exit 2
  fi
  port=$1 threads=$2 rundir=$3
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  mkdir -p "$rundir"
}

# exec_sluice: replaces this shell with Sluice serving RUNDIR/sluice.yaml on 127.0.0.1:PORT, so the
# harness's PID is Sluice's own; the admin API takes an ephemeral port and state stays in RUNDIR.
exec_sluice() {
  exec "$root/sluice" run --config "$rundir/sluice.yaml" --port "$port" --listen 127.0.0.1 \
    --threads "$threads" --admin-port 0 --state-dir "$rundir/state"
}
