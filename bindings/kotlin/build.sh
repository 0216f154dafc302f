#!/usr/bin/env bash
# Builds the Kotlin/JVM binding: the native library (target/debug/libsparsetable_kotlin.so),
# its uniffi-generated Kotlin glue, and bindings/kotlin/build/sparsetable.jar (glue + the
# idiomatic API). Run from anywhere after scripts/setup.sh; pass --release for an optimised
# native library (target/release). Use the jar with /usr/share/java/jna.jar and kotlinc's
# kotlin-stdlib.jar on the classpath and -Djna.library.path=<dir of the .so>.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PROFILE_FLAG=""; PROFILE_DIR=debug
if [ "${1:-}" = "--release" ]; then PROFILE_FLAG="--release"; PROFILE_DIR=release; fi
KOTLINC="$ROOT/.tools/kotlinc-2.4.20/bin/kotlinc"
BUILD="$ROOT/bindings/kotlin/build"
[ -x "$KOTLINC" ] || { echo "kotlinc missing at $KOTLINC: run scripts/setup.sh" >&2; exit 1; }

# One cargo call for both packages, so they share one feature resolution (no rebuilds).
cargo build $PROFILE_FLAG -p sparsetable-kotlin -p sparsetable-uniffi-bindgen
rm -rf "$BUILD/generated" "$BUILD/sparsetable.jar"
mkdir -p "$BUILD/generated"
# uniffi finds bindings/kotlin/uniffi.toml (package dev.sparsetable.ffi) through cargo metadata.
"target/$PROFILE_DIR/uniffi-bindgen" generate --library "target/$PROFILE_DIR/libsparsetable_kotlin.so" \
  --language kotlin --no-format --out-dir "$BUILD/generated"
"$KOTLINC" -jvm-target 17 -module-name sparsetable -cp /usr/share/java/jna.jar -d "$BUILD/sparsetable.jar" \
  "$BUILD/generated" bindings/kotlin/src/main/kotlin
echo "built $BUILD/sparsetable.jar and target/$PROFILE_DIR/libsparsetable_kotlin.so"
