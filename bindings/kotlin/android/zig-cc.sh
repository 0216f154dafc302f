#!/usr/bin/env bash
# A linker for Rust's Android targets made of zig (PyPI's `ziglang`), for machines without the
# Android NDK: `ZIG_TARGET=x86_64-linux-android zig-cc.sh ARGS...` links with `zig cc`. Bionic's
# libraries are not shipped with zig, so the script links against stubs (stubs/<target>/:
# empty shared objects named libc.so, libdl.so, liblog.so, libm.so, which only make the linker
# record them as NEEDED). The unwinder Rust's standard library asks for with `-lunwind` is
# linked in statically, as the NDK does: LLVM's libunwind built from zig's copy of its sources
# by libunwind.sh (once per target, kept in the stub directory). The result is an ELF shared
# object for the target whose only undefined symbols are bionic's, which check.sh verifies.
set -euo pipefail
: "${ZIG:?set ZIG to the zig command (e.g. '.venv/bin/python -m ziglang')}"
: "${ZIG_TARGET:?set ZIG_TARGET (x86_64-linux-android, aarch64-linux-android, arm-linux-androideabi)}"
: "${ZIG_STUBS:?set ZIG_STUBS to the stub library directory}"
unwind="$ZIG_STUBS/libunwind.a"
[ -f "$unwind" ] || bash "$(dirname "$0")/libunwind.sh" "$ZIG_TARGET" "$unwind"
args=()
for a in "$@"; do
  case "$a" in
    # rustc's flags that zig's clang driver rejects or that need the real NDK.
    # --as-needed is dropped because the stubs define no symbols: every bionic library on the
    # link line is recorded as NEEDED (an NDK link keeps only those it uses).
    --target=*|-lgcc_s|-lgcc|-Wl,--no-undefined-version|-Wl,--as-needed) ;;
    -lunwind) args+=("$unwind") ;;
    # Bionic's libraries as stub files: `-lc` would make zig try to provide a libc it lacks.
    -lc|-lm|-ldl|-llog) args+=("$ZIG_STUBS/lib${a#-l}.so") ;;
    # zig reads -march as a CPU name; armv7-a is zig's generic ARM CPU with the v7-A feature.
    -march=armv7-a) args+=("-mcpu=generic+v7a") ;;
    *) args+=("$a") ;;
  esac
done
# shellcheck disable=SC2086
exec $ZIG cc -target "$ZIG_TARGET" -nostdlib -Wl,--no-as-needed "${args[@]}"
