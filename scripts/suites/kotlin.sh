#!/usr/bin/env bash
# The Kotlin/JVM suite: builds the uniffi cdylib, generates its Kotlin glue with the
# workspace's uniffi-bindgen, builds the artifact jar (glue + idiomatic API + the native library
# inside, bindings/kotlin/build.sh), compiles the JUnit 4 tests (bindings/kotlin/src/test)
# against it into a test jar, and runs them on the real JVM from those jars, with JNA loading
# the native library from the artifact jar (no library path given). Also runs the binding
# crate's Rust unit tests, compiles and runs the README example against the jar, and checks
# the Android build (bindings/kotlin/android/check.sh --ci: cargo check for one Android
# target, plus a zig-linked .so verified with readelf when zig is installed).
# Counts: each cargo test case, each JUnit test, plus one check for the example.
# Everything generated goes to bindings/kotlin/build/ (git-ignored).
# With --prebuild it only compiles the Rust side, with the very commands of step 1 and
# build.sh (see scripts/prebuild.sh), and runs nothing.
set -uo pipefail
cd "${ROOT:-$(dirname "$0")/../..}"
ROOT=$(pwd)
# Both packages, so uniffi keeps the feature set build.sh uses and is not compiled twice.
TESTS=(cargo test -p sparsetable-kotlin -p sparsetable-uniffi-bindgen)
if [ "${1:-}" = --prebuild ]; then
  "${TESTS[@]}" --no-run; cargo build -p sparsetable-kotlin -p sparsetable-uniffi-bindgen
  # The Android check's cross build: the dependencies compile without a linker (zig may not be
  # installed yet, so the final link may fail here, unreported; the suite relinks in seconds).
  # The same linker setting as android/check.sh, so cargo finds these artifacts fresh there.
  CARGO_TARGET_X86_64_LINUX_ANDROID_LINKER="$ROOT/bindings/kotlin/android/zig-cc.sh" \
    ZIG="$ROOT/.venv/bin/python -m ziglang" ZIG_TARGET=x86_64-linux-android \
    ZIG_STUBS="$ROOT/bindings/kotlin/build/android-stubs/x86_64" \
    cargo build --lib -p sparsetable-kotlin --target x86_64-linux-android
  exit
fi
KOTLINC_HOME="$ROOT/.tools/kotlinc-2.4.20"
KOTLINC="$KOTLINC_HOME/bin/kotlinc"
BUILD="$ROOT/bindings/kotlin/build"
JARS=/usr/share/java
pass=0; fail=0
SUITE_START=$(date +%s)
result() { echo "kotlin suite took $(( $(date +%s) - SUITE_START ))s"; echo "SUITE_RESULT kotlin $pass $fail"; [ "$fail" -eq 0 ]; exit $?; }
die() { echo "FAILED: $*"; fail=$((fail + 1)); result; }

[ -x "$KOTLINC" ] || die "kotlinc missing at $KOTLINC (run scripts/setup.sh)"
for j in jna junit4 hamcrest gson sqlite-jdbc h2; do [ -f "$JARS/$j.jar" ] || die "$JARS/$j.jar missing (run scripts/setup.sh)"; done

# 1. The binding crate's own Rust tests (conversions, error mapping).
out=$(mktemp)
"${TESTS[@]}" 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
read -r p f < <(awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) P += $i; if ($(i+1) ~ /^failed/) F += $i } } END { print P+0, F+0 }' "$out")
pass=$((pass + p)); fail=$((fail + f))
if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then fail=$((fail + 1)); fi

# 2. Native library, generated glue, and the API jar (the same script users run).
rm -rf "$BUILD"
bash bindings/kotlin/build.sh || die "bindings/kotlin/build.sh"

# 2b. The HTML API docs: the -javadoc.jar holds an index and a page for each public class the
# README names, each page with that class's KDoc.
javadoc_jar=$(ls "$BUILD"/sparsetable-*-javadoc.jar 2>/dev/null | head -n 1)
if python3 - "$javadoc_jar" <<'PY'
import sys, zipfile
pages = ["BigtableDataClient", "BigtableTableAdminClient", "Query", "Filters", "RowMutation", "Sparsetable", "ApiException"]
with zipfile.ZipFile(sys.argv[1]) as z:
    index = z.read("index.html").decode()
    missing = [p for p in pages if f'href="{p}.html"' not in index or "</pre><p>" not in z.read(f"{p}.html").decode()]
sys.exit(f"pages missing or without KDoc: {missing}" if missing else 0)
PY
then
  echo "ok: KDoc HTML in $(basename "$javadoc_jar")"; pass=$((pass + 1))
else
  echo "FAILED: KDoc HTML"; fail=$((fail + 1))
fi
# Every public declaration of the Kotlin layer has KDoc of its own (constructor properties too).
kdoc_dir=$(mktemp -d)
kdoc_out=$(python3 bindings/kotlin/kdoc_html.py "$kdoc_dir" bindings/kotlin/src/main/kotlin bindings/kotlin/testing/src/main/kotlin)
rm -rf "$kdoc_dir"
if grep -q ', 0 public declarations without KDoc' <<<"$kdoc_out"; then
  echo "ok: every public declaration has KDoc"; pass=$((pass + 1))
else
  echo "$kdoc_out"; echo "FAILED: public declarations without KDoc"; fail=$((fail + 1))
fi

# 3. The tests, compiled against the jar.
KOTLIN_LIBS="$KOTLINC_HOME/lib/kotlin-stdlib.jar"
TEST_LIBS="$JARS/junit4.jar:$JARS/hamcrest.jar:$JARS/gson.jar:$KOTLINC_HOME/lib/kotlin-test.jar:$KOTLINC_HOME/lib/kotlin-test-junit.jar"
mkdir -p "$BUILD/example"
# The JVM benchmark compiles in the same kotlinc run (one compiler start) for its smoke run below.
BENCH_LIBS="$JARS/sqlite-jdbc.jar:$JARS/h2.jar"
"$KOTLINC" -jvm-target 17 -cp "$BUILD/sparsetable.jar:$JARS/jna.jar:$TEST_LIBS:$BENCH_LIBS" -d "$BUILD/sparsetable-tests.jar" \
  bindings/kotlin/src/test/kotlin bindings/kotlin/bench/JvmBench.kt || die "kotlinc tests"

# 4. JUnit on the real JVM, from the jars: the native library comes out of sparsetable.jar.
RUN_CP="$BUILD/sparsetable-tests.jar:$BUILD/sparsetable.jar:$JARS/jna.jar:$KOTLIN_LIBS:$TEST_LIBS"
classes=$(jar tf "$BUILD/sparsetable-tests.jar" | grep -E 'Test\.class$' | grep -v '\$' | sed 's|\.class$||; s|/|.|g' | sort)
[ -n "$classes" ] || die "no test classes compiled"
java -Dsparsetable.vectors="$ROOT/tests/vectors" \
  -cp "$RUN_CP" org.junit.runner.JUnitCore $classes 2>&1 | tee "$out"
rc=${PIPESTATUS[0]}
if ok=$(grep -Eo '^OK \([0-9]+ tests?\)' "$out" | grep -Eo '[0-9]+'); then
  pass=$((pass + ok))
elif line=$(grep -E '^Tests run: [0-9]+, +Failures: [0-9]+' "$out" | tail -n 1); then
  run=$(sed -E 's/^Tests run: ([0-9]+).*/\1/' <<<"$line")
  failures=$(sed -E 's/.*Failures: ([0-9]+).*/\1/' <<<"$line")
  pass=$((pass + run - failures)); fail=$((fail + failures))
else
  echo "FAILED: no JUnit summary"; fail=$((fail + 1))
fi
if [ "$rc" -ne 0 ] && ! grep -qE '^Tests run: .*Failures: [1-9]' "$out"; then fail=$((fail + 1)); fi

# 5. The README examples: bindings/kotlin/examples/Quickstart.kt (bindings/kotlin/README.md) and
# the Kotlin block of the root README.md's "Kotlin / JVM" section, pasted as is into a file
# (package readme, so its main does not clash), compiled against the jar in one kotlinc run
# and run from the jar; each must print what the READMEs say.
awk '/^## Kotlin \/ JVM/ { s = 1 } s && /^```kotlin/ { b = 1; print "package readme"; next } b && /^```/ { exit } b { print }' \
  README.md > "$BUILD/example/Readme.kt"
if "$KOTLINC" -jvm-target 17 -cp "$BUILD/sparsetable.jar:$JARS/jna.jar" -d "$BUILD/example" \
     bindings/kotlin/examples/Quickstart.kt bindings/kotlin/examples/Replication.kt "$BUILD/example/Readme.kt" \
   && java -cp "$BUILD/example:$BUILD/sparsetable.jar:$JARS/jna.jar:$KOTLIN_LIBS" \
     QuickstartKt | tee "$out" \
   && grep -qx 'alice: \[profile:name@1000=Alice\]' "$out" \
   && grep -qx 'bob has 2 cells, newest name Bob' "$out" \
   && grep -qx 'NOT_FOUND: retryable=false' "$out"; then
  echo "ok: README example"; pass=$((pass + 1))
else
  echo "FAILED: README example"; fail=$((fail + 1))
fi
# The replication example (bindings/kotlin/examples/Replication.kt, compiled above): its output,
# and the "Replication" block of bindings/kotlin/README.md is the file's own text.
if java -cp "$BUILD/example:$BUILD/sparsetable.jar:$JARS/jna.jar:$KOTLIN_LIBS" ReplicationKt | tee "$out" \
   && [ "$(grep -c '' "$out")" -eq 5 ] \
   && grep -qx 'west before the lag: null' "$out" && grep -qx 'west after the lag: v' "$out" \
   && [ "$(grep -cx 'consistent: false' "$out")" -eq 1 ] && [ "$(grep -cx 'consistent: true' "$out")" -eq 1 ] \
   && grep -q '^UNAVAILABLE: cluster "sparsetable-c2" is unavailable' "$out" \
   && python3 - <<'PY'
import re, sys
readme = open("bindings/kotlin/README.md").read().split("\n## Replication", 1)[1]
block = re.search(r"```kotlin\n(.*?)```", readme, re.S).group(1)
sys.exit(0 if block in open("bindings/kotlin/examples/Replication.kt").read() else "README Replication block differs from examples/Replication.kt")
PY
then
  echo "ok: README replication example"; pass=$((pass + 1))
else
  echo "FAILED: README replication example"; fail=$((fail + 1))
fi
if java -cp "$BUILD/example:$BUILD/sparsetable.jar:$JARS/jna.jar:$KOTLIN_LIBS" readme.ReadmeKt | tee "$out" \
   && grep -qx 'bob: Bob' "$out"; then
  echo "ok: root README Kotlin block"; pass=$((pass + 1))
else
  echo "FAILED: root README Kotlin block"; fail=$((fail + 1))
fi

# 6. The JVM benchmark on 500 rows: it runs against SQLite and H2 (measures nothing here).
if java -cp "$BUILD/sparsetable-tests.jar:$BUILD/sparsetable.jar:$JARS/jna.jar:$BENCH_LIBS:$KOTLIN_LIBS" JvmBenchKt 500 >"$out" 2>&1 \
   && grep -q '^| point read |' "$out"; then
  echo "ok: JVM benchmark smoke"; pass=$((pass + 1))
else
  cat "$out"; echo "FAILED: JVM benchmark smoke"; fail=$((fail + 1))
fi

# 6b. The JUnit 5 test helpers (bindings/kotlin/testing: SparsetableEmulator and its
# extension) as a jar of their own, and their JUnit 5 tests against the real server (the debug
# binary the server suite uses; built here if it is not yet, with the same command), run by
# JUnit's console launcher.
J5="$JARS/junit-jupiter-api.jar:$JARS/junit-platform-commons.jar:$JARS/apiguardian-api.jar:$JARS/opentest4j.jar"
if [ ! -f "$JARS/junit-platform-console-standalone.jar" ]; then
  echo "FAILED: $JARS/junit-platform-console-standalone.jar missing (run scripts/setup.sh)"; fail=$((fail + 1))
elif ! cargo build --locked -q -p sparsetable-server; then
  echo "FAILED: cargo build -p sparsetable-server"; fail=$((fail + 1))
elif ! "$KOTLINC" -jvm-target 17 -cp "$J5" -d "$BUILD/sparsetable-testing.jar" bindings/kotlin/testing/src/main/kotlin \
   || ! "$KOTLINC" -jvm-target 17 -cp "$BUILD/sparsetable-testing.jar:$J5" -d "$BUILD/sparsetable-testing-tests.jar" bindings/kotlin/testing/src/test/kotlin; then
  echo "FAILED: kotlinc bindings/kotlin/testing"; fail=$((fail + 1))
else
  selects=$(jar tf "$BUILD/sparsetable-testing-tests.jar" | grep -E 'Test\.class$' | grep -v '\$' | sed 's|\.class$||; s|/|.|g; s|^|--select-class |')
  # shellcheck disable=SC2086
  java -Dsparsetable.server.bin="$ROOT/target/debug/sparsetable-server" -jar "$JARS/junit-platform-console-standalone.jar" \
    -cp "$BUILD/sparsetable-testing-tests.jar:$BUILD/sparsetable-testing.jar:$KOTLIN_LIBS" $selects \
    --disable-banner --details=tree 2>&1 | tee "$out"
  j5_ok=$(sed -nE 's/^\[ *([0-9]+) tests successful *\]$/\1/p' "$out")
  j5_failed=$(sed -nE 's/^\[ *([0-9]+) tests failed *\]$/\1/p' "$out")
  if [ -z "$j5_ok" ] || [ "$j5_ok" -eq 0 ]; then
    echo "FAILED: no JUnit 5 summary"; fail=$((fail + 1))
  else
    pass=$((pass + j5_ok)); fail=$((fail + ${j5_failed:-0}))
  fi
fi
# 7. Android: the crate built for x86_64-linux-android, linked by zig, checked with readelf;
# the Kotlin layer's java.* references checked against API 26, classes and members
# (bindings/kotlin/android/check.sh; its exit status and its last line both count).
android_start=$(date +%s)
android_rc=0
bash bindings/kotlin/android/check.sh --ci > "$out" 2>&1 || android_rc=$?
grep -E '^(ok|FAILED|missing|allowed)' "$out"
if [ "$android_rc" -eq 0 ] && grep -q '^ok: the Kotlin layer' "$out" && grep -q '^ok: .* member references' "$out"; then
  echo "ok: Android check ($(( $(date +%s) - android_start ))s)"; pass=$((pass + 1))
else
  tail -n 20 "$out"; echo "FAILED: Android check"; fail=$((fail + 1))
fi
rm -f "$out"
result
