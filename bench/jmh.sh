#!/usr/bin/env bash
# Runs the in-tree JMH benchmarks (gslb-dns-server/src/test/java/io/sluice/dns/bench) against the
# shipped example config. Extra arguments go to JMH, e.g.  bench/jmh.sh -wi 2 -i 3 ResponderBenchmark
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
m2="${MAVEN_REPO:-$HOME/.m2/repository}"
mvn -B -q -DskipTests package
mvn -B -q -pl gslb-dns-server -am test-compile
cp="gslb-dns-server/target/test-classes:gslb-dns-server/target/sluice.jar"
for jar in org/openjdk/jmh/jmh-core/1.37/jmh-core-1.37.jar \
           net/sf/jopt-simple/jopt-simple/5.0.4/jopt-simple-5.0.4.jar \
           org/apache/commons/commons-math3/3.6.1/commons-math3-3.6.1.jar; do
  [ -f "$m2/$jar" ] || { echo "missing $m2/$jar (run mvn test-compile online once)" >&2; exit 2; }
  cp="$cp:$m2/$jar"
done
exec java -Dsluice.config=config/sluice.yaml -cp "$cp" org.openjdk.jmh.Main "${@:-ResponderBenchmark}"
