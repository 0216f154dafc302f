#!/usr/bin/env bash
# Assembles bindings/kotlin/build/sparsetable-VERSION.aar: classes.jar (the Kotlin API and the
# generated glue, from bindings/kotlin/build.sh), jni/<abi>/libsparsetable_kotlin.so for
# arm64-v8a, armeabi-v7a and x86_64 (the AAR format's folder for what a Gradle project keeps in
# src/main/jniLibs/<abi>/), AndroidManifest.xml (minSdk 26) and an empty R.txt.
# The native libraries come from the NDK when ANDROID_NDK_HOME is set (cargo ndk, the route for
# shipping), else from check.sh's zig link (no NDK needed; verified with readelf but never run
# on a device, see README). Run bindings/kotlin/build.sh first.
# Apps also need JNA's Android build: net.java.dev.jna:jna:5.13.0@aar.
set -euo pipefail
cd "$(dirname "$0")/../../.."
BUILD=bindings/kotlin/build
VERSION=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -n 1)
[ -d "$BUILD/classes/dev" ] || { echo "run bindings/kotlin/build.sh first" >&2; exit 1; }
AAR="$BUILD/aar"
rm -rf "$AAR"; mkdir -p "$AAR"
PROFILE_DIR=${PROFILE_DIR:-release}
declare -A RUST=([arm64-v8a]=aarch64-linux-android [armeabi-v7a]=armv7-linux-androideabi [x86_64]=x86_64-linux-android)
for abi in arm64-v8a armeabi-v7a x86_64; do
  mkdir -p "$AAR/jni/$abi"
  if [ -n "${ANDROID_NDK_HOME:-}" ]; then
    cargo ndk -t "$abi" --platform 26 build --release --lib -p sparsetable-kotlin
    cp "target/${RUST[$abi]}/release/libsparsetable_kotlin.so" "$AAR/jni/$abi/"
  else
    PROFILE_DIR=$PROFILE_DIR bash bindings/kotlin/android/check.sh "$abi"
    cp "target/${RUST[$abi]}/$PROFILE_DIR/libsparsetable_kotlin.so" "$AAR/jni/$abi/"
  fi
done
# classes.jar: the JVM jar's classes without its linux-x86-64 library and Maven metadata.
mkdir -p "$AAR/tmp"
cp -r "$BUILD/classes/dev" "$AAR/tmp/"
jar --create --file "$AAR/classes.jar" -C "$AAR/tmp" .
rm -rf "$AAR/tmp"
cat > "$AAR/AndroidManifest.xml" <<XML
<?xml version="1.0" encoding="utf-8"?>
<manifest xmlns:android="http://schemas.android.com/apk/res/android" package="dev.sparsetable">
    <uses-sdk android:minSdkVersion="26" />
</manifest>
XML
: > "$AAR/R.txt"
(cd "$AAR" && jar --create --no-manifest --file "../sparsetable-$VERSION.aar" AndroidManifest.xml R.txt classes.jar jni)
echo "built $BUILD/sparsetable-$VERSION.aar:"
jar tf "$BUILD/sparsetable-$VERSION.aar"
