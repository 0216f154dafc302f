#!/usr/bin/env bash
# Builds libunwind.a for one Android ABI from the LLVM libunwind sources that zig ships
# (PyPI's `ziglang`, lib/libunwind): the same unwinder the NDK's static libunwind.a is, and the
# one Rust's standard library expects for Android targets (it links `-lunwind`; without it every
# `_Unwind_*` symbol stays undefined and the library cannot load on a device).
#   ZIG='python -m ziglang' libunwind.sh ZIG_TARGET OUT.a
# zig has no bionic headers, so the sources compile against zig's musl headers for the same
# architecture plus bionic-shim.h, which declares what differs. That is sound only for what
# libunwind calls, each checked against bionic's ABI at API 26 (the AAR's minSdk):
#   - abort, malloc, free, memcpy, memset, fprintf, fwrite, fflush, snprintf, stderr (API 23),
#     dladdr, dl_iterate_phdr, syscall: same names and argument types in bionic;
#     Dl_info and dl_phdr_info have the same layout.
#   - errno: musl reads it through __errno_location(), bionic through __errno(); the shim
#     renames the one to the other (same signature, int *(void)).
#   - pthread_rwlock_t: 56 bytes on 64-bit musl and bionic alike, initializer all zeros. It is
#     used only by the DWARF unwinder's FDE cache, which 32-bit ARM (EHABI) does not build, so
#     the size difference there (musl 32 bytes, bionic 40) is never reached.
#   - 32-bit ARM finds a PC's unwind table through bionic's dl_unwind_find_exidx, as the NDK's
#     build does (__BIONIC__ selects it), declared by the shim.
# Symbols are hidden (_LIBUNWIND_HIDE_SYMBOLS), as in the NDK's archive, so the library does not
# re-export an unwinder.
set -euo pipefail
: "${ZIG:?set ZIG to the zig command (e.g. '.venv/bin/python -m ziglang')}"
target=${1:?usage: libunwind.sh ZIG_TARGET OUT.a}
out=${2:?usage: libunwind.sh ZIG_TARGET OUT.a}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck disable=SC2086
# `zig env` names the executable (as `.zig_exe = "..."` in 0.14+, `"zig_exe": "..."` before);
# the sources sit in lib/ beside it in every zig distribution, PyPI's included.
exe=$($ZIG env | sed -n 's/.*zig_exe"\{0,1\} *[=:] *"\([^"]*\)".*/\1/p')
lib=$(dirname "$exe")/lib
[ -d "$lib/libunwind/src" ] || { echo "libunwind.sh: no libunwind sources under '$lib'" >&2; exit 1; }
case "$target" in
  x86_64-linux-android) arch=x86_64; flags=() ;;
  aarch64-linux-android) arch=aarch64; flags=() ;;
  # Rust's armv7-linux-androideabi: ARMv7-A, Thumb-2.
  arm-linux-androideabi) arch=arm; flags=(-D__BIONIC__ -mcpu=generic+v7a -mthumb) ;;
  *) echo "libunwind.sh: unknown target $target" >&2; exit 2 ;;
esac
inc=(-nostdinc -isystem "$lib/libc/include/$arch-linux-musl" -isystem "$lib/libc/include/generic-musl"
     -isystem "$lib/libc/include/$arch-linux-any" -isystem "$lib/libc/include/any-linux-any"
     -I "$lib/libunwind/include" -include "$here/bionic-shim.h")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for src in libunwind.cpp Unwind-EHABI.cpp UnwindLevel1.c UnwindLevel1-gcc-ext.c \
           UnwindRegistersSave.S UnwindRegistersRestore.S; do
  case "$src" in
    *.cpp) lang=(-std=c++17 -nostdinc++ -fno-exceptions -fno-rtti) ;;
    *.c) lang=(-std=c99) ;;
    *) lang=() ;;
  esac
  # shellcheck disable=SC2086
  $ZIG cc -target "$target" "${inc[@]}" "${flags[@]}" "${lang[@]}" -O2 -fPIC -funwind-tables \
    -fvisibility=hidden -D_LIBUNWIND_IS_NATIVE_ONLY -D_LIBUNWIND_HIDE_SYMBOLS -DNDEBUG \
    -c "$lib/libunwind/src/$src" -o "$work/${src%.*}.o"
done
mkdir -p "$(dirname "$out")"
# shellcheck disable=SC2086
$ZIG ar rcs "$work/libunwind.a" "$work"/*.o
mv "$work/libunwind.a" "$out"
