#!/usr/bin/env bash
# Starts Sluice on 127.0.0.1:PORT_BASE+6 through SLUICE_START (default: bench/start-sluice.sh).
# Env: THREADS, CPUS. The contract of SLUICE_START: it takes PORT THREADS RUNDIR, writes the
# configuration it needs into RUNDIR (emptied) and execs Sluice in the foreground, so the PID
# recorded is Sluice's own. Sluice must answer static.example.test within 60 s (JVM start-up
# included); build the jar beforehand (mvn -B -q -DskipTests package).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [ -d "$SLUICE_START" ] || [ ! -x "$SLUICE_START" ]; then
  echo "start-sluice.sh: SLUICE_START=$SLUICE_START is not an executable file" >&2
  exit 2
fi
prepare_server sluice
START_TIMEOUT=60 start_server sluice "$SLUICE_START" "$PORT" "$THREADS" "$RUN"
echo "sluice pid $(cat "$RUN/pid") port $PORT threads $THREADS cpus $CPUS start $SLUICE_START"
