#!/usr/bin/env bash
# Launcher check of `sluice ctl` (docs/cli.md, "Start-up"), after the package step: the build
# wrote the CLI's class-data-sharing archive next to the jar, `./sluice ctl` maps the CLI's
# classes from it, and a damaged archive never breaks ctl (the launcher removes it and runs the
# command without it). ctl is pointed at port 0, where nothing listens: it loads its client and
# ends with "cannot connect", exit 1. Exits non-zero, naming every failed check.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
jar="$root/gslb-dns-server/target/sluice.jar"
archive="$root/gslb-dns-server/target/sluice-ctl.jsa"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0 failed=0

check() {
  if "$@"; then
    passed=$((passed + 1)) && echo "ok   $what"
  else
    failed=$((failed + 1)) && echo "FAIL $what" && sed 's/^/     | /' "$work/err" 2>/dev/null
  fi
}
ctl() {
  local status=0
  "$root/sluice" ctl --url http://127.0.0.1:0 --token t rollback app.example.test \
    >"$work/out" 2>"$work/err" || status=$?
  [ "$status" -eq 1 ] && grep -q 'cannot connect' "$work/err"
}

what="the package step wrote an archive newer than the jar"
check test "$archive" -nt "$jar"
mapped() { # the command's own classes and picocli's (Java 5 classes, which only a static dump takes)
  rm -f "$work/classes.log"
  SLUICE_JAVA_OPTS="-Xlog:class+load=info:file=$work/classes.log" ctl &&
    grep -q "io.sluice.admin.cli.RollbackCommand source: shared objects file" "$work/classes.log" &&
    grep -q "picocli.CommandLine source: shared objects file" "$work/classes.log"
}
what="ctl through the launcher maps its classes from the archive, picocli's too"
check mapped

cp -p "$archive" "$work/kept.jsa"
head -c 4096 "$work/kept.jsa" >"$work/damaged.jsa"
mv -f "$work/damaged.jsa" "$archive"
what="a damaged archive: ctl still runs, and the archive is removed"
check eval 'ctl && grep -q "is damaged; removed it" "$work/err" && [ ! -e "$archive" ]'
what="without an archive, a ctl run writes one, and the next run maps its classes from it"
check eval 'ctl && [ -s "$archive" ] && ! ls "$archive".[0-9]* >/dev/null 2>&1 && mapped'
# Put the package step's archive back, as the build left it.
cp -p "$work/kept.jsa" "$archive"

echo "ctl launcher: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
