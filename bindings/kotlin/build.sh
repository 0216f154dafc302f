#!/usr/bin/env bash
# Builds the Kotlin/JVM artifact: the native library, its uniffi-generated Kotlin glue, and in
# bindings/kotlin/build/:
#   sparsetable-VERSION.jar          the Kotlin API + generated glue + the linux-x86_64 native
#                                    library at linux-x86-64/libsparsetable_kotlin.so (JNA loads
#                                    it from the classpath; no -Djna.library.path needed) + the
#                                    pom under META-INF/maven/
#   sparsetable-VERSION-sources.jar  the Kotlin sources, with their KDoc
#   sparsetable-VERSION-javadoc.jar  that KDoc as HTML (bindings/kotlin/kdoc_html.py: Dokka
#                                    comes from Maven Central, which these machines cannot reach)
#   sparsetable-VERSION.pom          dependencies: JNA, kotlin-stdlib
#   sparsetable.jar                  the same jar under a fixed name
# Run from anywhere after scripts/setup.sh; pass --release for an optimised native library
# (target/release). Use the jar with JNA (/usr/share/java/jna.jar) and kotlinc's
# kotlin-stdlib.jar on the classpath.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PROFILE_FLAG=""; PROFILE_DIR=debug
if [ "${1:-}" = "--release" ]; then PROFILE_FLAG="--release"; PROFILE_DIR=release; fi
KOTLINC="$ROOT/.tools/kotlinc-2.4.20/bin/kotlinc"
BUILD="$ROOT/bindings/kotlin/build"
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
[ -x "$KOTLINC" ] || { echo "kotlinc missing at $KOTLINC: run scripts/setup.sh" >&2; exit 1; }

# One cargo call for both packages, so they share one feature resolution (no rebuilds).
cargo build $PROFILE_FLAG -p sparsetable-kotlin -p sparsetable-uniffi-bindgen
rm -rf "$BUILD/generated" "$BUILD/classes" "$BUILD"/sparsetable*.jar "$BUILD"/sparsetable*.pom
mkdir -p "$BUILD/generated" "$BUILD/classes"
# uniffi finds bindings/kotlin/uniffi.toml (package dev.sparsetable.ffi) through cargo metadata.
"target/$PROFILE_DIR/uniffi-bindgen" generate --library "target/$PROFILE_DIR/libsparsetable_kotlin.so" \
  --language kotlin --no-format --out-dir "$BUILD/generated"
"$KOTLINC" -jvm-target 17 -module-name sparsetable -cp /usr/share/java/jna.jar -d "$BUILD/classes" \
  "$BUILD/generated" bindings/kotlin/src/main/kotlin

# The native library where JNA looks on the classpath (Platform.RESOURCE_PREFIX), without its
# debug sections (17 MB -> a few), and the pom where Maven puts it.
mkdir -p "$BUILD/classes/linux-x86-64" "$BUILD/classes/META-INF/maven/dev.sparsetable/sparsetable"
strip --strip-debug -o "$BUILD/classes/linux-x86-64/libsparsetable_kotlin.so" "target/$PROFILE_DIR/libsparsetable_kotlin.so"
sed "s/@VERSION@/$VERSION/" bindings/kotlin/pom.xml > "$BUILD/sparsetable-$VERSION.pom"
cp "$BUILD/sparsetable-$VERSION.pom" "$BUILD/classes/META-INF/maven/dev.sparsetable/sparsetable/pom.xml"
jar --create --file "$BUILD/sparsetable-$VERSION.jar" -C "$BUILD/classes" .
jar --create --file "$BUILD/sparsetable-$VERSION-sources.jar" -C bindings/kotlin/src/main/kotlin . -C "$BUILD/generated" .
python3 bindings/kotlin/kdoc_html.py "$BUILD/kdoc" bindings/kotlin/src/main/kotlin
jar --create --file "$BUILD/sparsetable-$VERSION-javadoc.jar" -C "$BUILD/kdoc" .
cp "$BUILD/sparsetable-$VERSION.jar" "$BUILD/sparsetable.jar"
echo "built $BUILD/sparsetable-$VERSION.jar (+ -sources.jar, -javadoc.jar, .pom) with target/$PROFILE_DIR/libsparsetable_kotlin.so inside"
