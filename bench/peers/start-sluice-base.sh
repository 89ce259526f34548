#!/usr/bin/env bash
# Starts a second build of Sluice, "sluice-base", on 127.0.0.1:PORT_BASE+8 through
# SLUICE_BASE_START: the bench/start-sluice.sh of another checkout, built beforehand, so the
# harness measures a change against the build before it in the same runs (docs/benchmark.md).
# Env: THREADS, CPUS; the SLUICE_START contract of start-sluice.sh.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/common.sh"
if [ -z "$SLUICE_BASE_START" ] || [ -d "$SLUICE_BASE_START" ] || [ ! -x "$SLUICE_BASE_START" ]; then
  echo "start-sluice-base.sh: set SLUICE_BASE_START to an executable start script of another" \
    "checkout (its bench/start-sluice.sh); it is '${SLUICE_BASE_START}'" >&2
  exit 2
fi
prepare_server sluice-base
START_TIMEOUT=60 start_server sluice-base "$SLUICE_BASE_START" "$PORT" "$THREADS" "$RUN"
echo "sluice-base pid $(cat "$RUN/pid") port $PORT threads $THREADS cpus $CPUS start $SLUICE_BASE_START"
