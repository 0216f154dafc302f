#!/usr/bin/env bash
# Android build checks without the Android NDK (it cannot be downloaded on CI machines):
#   check.sh --ci        x86_64-linux-android only: builds the native library (debug) linked by
#                        zig (zig-cc.sh, bionic as stubs) and verifies it with readelf
#   check.sh ABI...      the same for each of arm64-v8a armeabi-v7a x86_64 (default: all three)
# Verified per library: ELF class and machine of the ABI, a shared object, NEEDED only bionic's
# libc/libm/libdl/liblog, every undefined symbol on android/bionic-imports.txt (bionic's
# exports at API 26; none of them `_Unwind_*`, which the linked-in libunwind provides), and
# exactly the uniffi symbols the host library exports (so JNA finds every function the
# generated Kotlin calls). Also checks that the Kotlin layer's classes use
# only java.* packages Android has at API 26 (jdeps, class level), and only java.* members that
# exist in Java 8's API, the library level of Android 26 (api_check.py, member level).
# Needs: rustup targets (scripts/setup.d/kotlin-android.sh), zig from PyPI in .venv, the host
# build of bindings/kotlin/build.sh (its .so and classes).
set -euo pipefail
cd "$(dirname "$0")/../../.."
ROOT=$(pwd)
BUILD="$ROOT/bindings/kotlin/build"
PROFILE_DIR=${PROFILE_DIR:-debug}
PROFILE_FLAG=""; [ "$PROFILE_DIR" = release ] && PROFILE_FLAG=--release
export ZIG="$ROOT/.venv/bin/python -m ziglang"
abis=("$@"); [ ${#abis[@]} -eq 0 ] && abis=(arm64-v8a armeabi-v7a x86_64)
[ "${abis[0]}" = --ci ] && abis=(x86_64)
fail() { echo "FAILED: $*" >&2; exit 1; }

host_syms() { readelf --dyn-syms -W "$1" | awk '$7 != "UND" && $8 ~ /^(uniffi_|ffi_)sparsetable_kotlin/ { print $8 }' | sort -u; }

# Imports: no unwinder symbol (libunwind.sh's archive must have been linked in), and nothing
# outside the reviewed list of bionic's exports, so the library can load on a device.
imports_of() { readelf --dyn-syms -W "$1" | awk '$7 == "UND" && $8 != "" { sub(/@.*/, "", $8); print $8 }' | sort -u; }
import_problems() {
  local imports unwind unknown
  imports=$(imports_of "$1")
  unwind=$(grep '^_Unwind_' <<<"$imports" | tr '\n' ' ' || true)
  [ -z "$unwind" ] || echo "the unwinder is not linked in; undefined: $unwind"
  unknown=$(comm -23 <(echo "$imports") <(sed -e 's/#.*//' -e '/^ *$/d' bindings/kotlin/android/bionic-imports.txt | awk '{ print $1 }' | sort -u) | tr '\n' ' ')
  [ -z "$unknown" ] || echo "imports not on android/bionic-imports.txt (review them against bionic): $unknown"
}

for abi in "${abis[@]}"; do
  case "$abi" in
    arm64-v8a) rust=aarch64-linux-android; zig=aarch64-linux-android; class=ELF64; machine=AArch64; tables=GNU_EH_FRAME ;;
    armeabi-v7a) rust=armv7-linux-androideabi; zig=arm-linux-androideabi; class=ELF32; machine=ARM; tables=EXIDX ;;
    x86_64) rust=x86_64-linux-android; zig=x86_64-linux-android; class=ELF64; machine=X86-64; tables=GNU_EH_FRAME ;;
    *) fail "unknown ABI $abi" ;;
  esac
  stubs="$BUILD/android-stubs/$abi"
  mkdir -p "$stubs"
  echo 'void sparsetable_android_stub(void) {}' > "$stubs/stub.c"
  for l in c m dl log; do
    [ -f "$stubs/lib$l.so" ] || $ZIG cc -target "$zig" -nostdlib -shared -Wl,-soname,"lib$l.so" -o "$stubs/lib$l.so" "$stubs/stub.c"
  done
  # Proof the import check can fail: a library calling the unwinder without linking it, and a
  # function bionic does not have, must both be reported.
  printf 'void _Unwind_Resume(void *);\nvoid not_in_bionic(void);\nvoid probe(void *e) { not_in_bionic(); _Unwind_Resume(e); }\n' > "$stubs/probe.c"
  $ZIG cc -target "$zig" -nostdlib -shared -o "$stubs/probe.so" "$stubs/probe.c"
  probe=$(import_problems "$stubs/probe.so")
  grep -q '_Unwind_Resume' <<<"$probe" && grep -q 'not_in_bionic' <<<"$probe" ||
    fail "$abi: the import check did not refuse a probe library: '$probe'"
  var="CARGO_TARGET_$(echo "$rust" | tr 'a-z-' 'A-Z_')_LINKER"
  start=$(date +%s)
  env "$var=$ROOT/bindings/kotlin/android/zig-cc.sh" ZIG_TARGET="$zig" ZIG_STUBS="$stubs" \
    cargo build $PROFILE_FLAG --lib -p sparsetable-kotlin --target "$rust"
  so="target/$rust/$PROFILE_DIR/libsparsetable_kotlin.so"
  echo "$abi: built $so in $(( $(date +%s) - start ))s"
  readelf -h "$so" | grep -q "Class: *$class" || fail "$abi: not $class"
  readelf -h "$so" | grep -q "Type: *DYN" || fail "$abi: not a shared object"
  readelf -h "$so" | grep -Eq "Machine: *.*$machine" || fail "$abi: machine is $(readelf -h "$so" | grep Machine)"
  needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
  [ "$needed" = "libc.so libdl.so liblog.so libm.so " ] || fail "$abi: NEEDED is '$needed'"
  # The segment the unwinder finds a frame's unwind table through (dl_iterate_phdr, or on
  # 32-bit ARM dl_unwind_find_exidx): without it a panic cannot unwind to uniffi's catch.
  readelf -lW "$so" | grep -Eq "^ *$tables " || fail "$abi: no $tables segment"
  # The unwinder stays private to the library, as with the NDK's hidden libunwind.a.
  ! readelf --dyn-syms -W "$so" | awk '$7 != "UND" { print $8 }' | grep -q '^_Unwind_' ||
    fail "$abi: the library exports the unwinder's symbols"
  problems=$(import_problems "$so")
  [ -z "$problems" ] || fail "$abi: $problems"
  imports=$(imports_of "$so")
  if ! diff <(host_syms "target/debug/libsparsetable_kotlin.so") <(host_syms "$so") >/dev/null; then
    fail "$abi: exported uniffi symbols differ from the host library's"
  fi
  echo "ok: $abi ($class $machine, NEEDED $needed, $(host_syms "$so" | wc -l) uniffi symbols as on the host, $(wc -l <<<"$imports") imports all bionic's, unwinder linked in and private, $tables)"
done

# The Kotlin layer against what Android offers at API 26 (java.time; CompletableFuture is 24):
# every java.*/javax.* class it references must be in a package Android has.
# java.lang.invoke's bootstrap classes (indy string concatenation, lambdas) are rewritten by
# Android's D8 when it dexes the jar.
allowed='^(java\.lang\.invoke\.(StringConcatFactory|LambdaMetafactory|MethodHandles|MethodHandles\$Lookup|MethodType|MethodHandle|CallSite)$|(java\.lang|java\.lang\.ref|java\.lang\.reflect|java\.lang\.annotation|java\.util|java\.util\.concurrent|java\.util\.concurrent\.atomic|java\.util\.concurrent\.locks|java\.util\.function|java\.util\.regex|java\.io|java\.nio|java\.nio\.charset|java\.nio\.file|java\.time|java\.time\.temporal|java\.time\.format|java\.text|java\.math|java\.net|java\.security)\.[A-Za-z0-9_$]+$)'
refs=$(jdeps -verbose:class -cp /usr/share/java/jna.jar "$BUILD/classes" 2>/dev/null \
  | awk '$1 ~ /^dev\.sparsetable/ && $3 ~ /^javax?\./ { print $3 }' | sort -u)
bad=$(grep -Ev "$allowed" <<<"$refs" || true)
[ -z "$bad" ] || fail "the Kotlin layer uses classes outside Android's java.* packages: $bad"
# Classes of allowed packages that Android still lacks at API 26.
missing=$(grep -E '^java\.(lang\.(ProcessHandle|StackWalker|Module|invoke\.VarHandle)|util\.concurrent\.Flow|net\.http)' <<<"$refs" || true)
[ -z "$missing" ] || fail "the Kotlin layer uses classes Android lacks at API 26: $missing"
echo "ok: the Kotlin layer references $(wc -l <<<"$refs") java.* classes, all in packages Android has at API 26"

# Member level: every java.* field and method the layer references must exist in Java 8's API
# (the JDK's ct.sym), the library level of Android 26 (api_check.py says why and what it
# cannot see). First, proof the check can fail: a class calling Java 9's List.of must be
# refused.
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'class Probe { Object f() { return java.util.List.of(1); } }\n' > "$probe/Probe.java"
javac -d "$probe/classes" "$probe/Probe.java"
if python3 "$ROOT/bindings/kotlin/android/api_check.py" "$probe/classes" > "$probe/out" ||
   ! grep -q 'missing: java.util.List.of' "$probe/out"; then
  fail "the member-level check did not refuse Java 9's List.of: $(cat "$probe/out")"
fi
python3 "$ROOT/bindings/kotlin/android/api_check.py" "$BUILD/classes" ||
  fail "the Kotlin layer calls java.* members that Java 8 (and so Android 26) lacks"
