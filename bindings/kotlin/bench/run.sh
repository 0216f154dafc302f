#!/usr/bin/env bash
# Runs the JVM benchmark (JvmBench.kt) against the release jar:
#   bash bindings/kotlin/build.sh --release && bash bindings/kotlin/bench/run.sh [N]
# `--smoke` runs it on 500 rows (CI-sized; checks it runs, measures nothing).
# Needs Debian's libxerial-sqlite-jdbc-java and libh2-java (scripts/setup.sh installs them).
set -euo pipefail
cd "$(dirname "$0")/../../.."
K=.tools/kotlinc-2.4.20
BUILD=bindings/kotlin/build
J=/usr/share/java
N=${1:-20000}; [ "$N" = --smoke ] && N=500
CP="$BUILD/sparsetable.jar:$J/jna.jar:$J/sqlite-jdbc.jar:$J/h2.jar"
mkdir -p "$BUILD/bench"
"$K/bin/kotlinc" -jvm-target 17 -cp "$CP" -d "$BUILD/bench/bench.jar" bindings/kotlin/bench/JvmBench.kt
java -cp "$BUILD/bench/bench.jar:$CP:$K/lib/kotlin-stdlib.jar" JvmBenchKt "$N"
