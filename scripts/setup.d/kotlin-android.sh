# Sourced by scripts/setup.sh: what the Kotlin suite's Android check needs (issue 16).
# The Rust target it builds for in CI (the other two ABIs are for bindings/kotlin/android/
# build-aar.sh, installed on demand by hand: rustup target add aarch64-linux-android
# armv7-linux-androideabi), and zig from PyPI as the linker (no Android NDK is reachable).
rustup target list --installed | grep -qx x86_64-linux-android || rustup target add x86_64-linux-android
.venv/bin/python -c "import ziglang" 2>/dev/null || {
  log "pip install ziglang"
  .venv/bin/pip install -q --disable-pip-version-check ziglang==0.17.1
}
