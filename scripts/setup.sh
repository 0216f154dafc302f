#!/usr/bin/env bash
# Installs everything Sparsetable's builds and tests need on a fresh Debian machine of the
# project's kind (rustup stable, Python 3, Node, JDK present). Idempotent: each step checks
# before it installs, so a warm machine passes through in seconds.
# Front-end specific installs live in scripts/setup.d/*.sh, sourced here in name order.
# `scripts/setup.sh --toolchain` installs only the Rust targets and components.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export ROOT

log() { echo "[setup] $*"; }

# Rust targets: wasm for the browser front-ends, thumbv7em to prove the core is no_std.
# x86_64-linux-android: the Kotlin suite's Android build check (bindings/kotlin/android).
for t in wasm32-unknown-unknown thumbv7em-none-eabihf x86_64-linux-android; do
  rustup target list --installed | grep -qx "$t" || rustup target add "$t"
done
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
# `--toolchain`: only the above, all cargo needs to compile the workspace (scripts/test.sh
# starts compiling in the background while the rest below installs).
if [ "${1:-}" = --toolchain ]; then
  exit 0
fi

# System packages: browser + driver for the wasm/web tests, JNA + JUnit for Kotlin.
APT_PACKAGES=(chromium chromium-driver libjna-java junit4 junit5 libgoogle-gson-java)
# JDBC peers of the Kotlin JVM benchmark (bindings/kotlin/bench).
APT_PACKAGES+=(libxerial-sqlite-jdbc-java libh2-java)
missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  log "apt-get install ${missing[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# wasm-bindgen-cli must match the wasm-bindgen version in Cargo.lock exactly. Without default
# features: they only add TLS (rustls and ring, a C and assembly build) for downloading
# webdrivers, while our test runner talks plain HTTP to the local chromedriver.
WB_VERSION=$(awk '/^name = "wasm-bindgen"$/{getline; gsub(/version = |"/,""); print; exit}' Cargo.lock)
if [ -n "$WB_VERSION" ] && [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$WB_VERSION" ]; then
  log "cargo install wasm-bindgen-cli $WB_VERSION (a few minutes, once)"
  cargo install wasm-bindgen-cli --version "$WB_VERSION" --no-default-features >/dev/null 2>&1 \
    || cargo install wasm-bindgen-cli --version "$WB_VERSION" --no-default-features
fi

# Python virtualenv with the build and test tools.
if [ ! -x .venv/bin/python ]; then
  log "python venv"
  python3 -m venv .venv
fi
.venv/bin/python -c "import maturin, pytest" 2>/dev/null || {
  log "pip install maturin pytest"
  .venv/bin/pip install -q --disable-pip-version-check maturin==1.16.0 pytest
}

for f in scripts/setup.d/*.sh; do
  [ -e "$f" ] || continue
  log "$(basename "$f")"
  # shellcheck disable=SC1090
  source "$f"
done
log "ready"
