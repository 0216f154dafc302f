# Kotlin/JVM front-end: the Kotlin compiler, unpacked under $ROOT/.tools/ (git-ignored).
# Sourced by scripts/setup.sh with `set -euo pipefail` and $ROOT set. Maven Central and Gradle
# are not reachable from CI, so kotlinc comes from npm's `kotlin-compiler` package, which is
# JetBrains' own distribution; JNA, JUnit and Gson come from Debian (scripts/setup.sh).
# Idempotent: a warm machine only runs the version check.
KOTLIN_VERSION=2.4.20
KOTLINC_HOME="$ROOT/.tools/kotlinc-$KOTLIN_VERSION"
if [ ! -x "$KOTLINC_HOME/bin/kotlinc" ]; then
  echo "[setup] kotlinc $KOTLIN_VERSION from npm"
  kotlin_tmp=$(mktemp -d)
  (cd "$kotlin_tmp" && npm pack --silent "kotlin-compiler@$KOTLIN_VERSION" >/dev/null)
  tar -xzf "$kotlin_tmp"/kotlin-compiler-*.tgz -C "$kotlin_tmp"
  # npm pack may drop the executable bit; the scripts under bin/ must run.
  chmod +x "$kotlin_tmp"/package/bin/*
  mkdir -p "$ROOT/.tools"
  rm -rf "$KOTLINC_HOME"
  mv "$kotlin_tmp/package" "$KOTLINC_HOME"
  rm -rf "$kotlin_tmp"
fi
unset kotlin_tmp
