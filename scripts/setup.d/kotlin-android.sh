# Sourced by scripts/setup.sh: what the Kotlin suite's Android check needs (issue 16).
# zig from PyPI as the linker (no Android NDK is reachable). The Rust target CI builds for,
# x86_64-linux-android, is added with the toolchain in scripts/setup.sh (so the background
# prebuild can compile for it early); the other two ABIs are for bindings/kotlin/android/
# build-aar.sh, added by hand: rustup target add aarch64-linux-android armv7-linux-androideabi.
.venv/bin/python -c "import ziglang" 2>/dev/null || {
  log "pip install ziglang"
  .venv/bin/pip install -q --disable-pip-version-check ziglang==0.17.1
}
