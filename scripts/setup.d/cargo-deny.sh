# Sourced by scripts/setup.sh (set -euo pipefail, $ROOT set): cargo-deny, which the rust suite
# runs over the dependency graph with deny.toml (licences, bans, sources). From crates.io with
# its own lock file. Unoptimized (--debug) and without debug info: cargo-deny's release profile
# (fat LTO, one codegen unit) took 8 minutes on CI's 2 cores, the unoptimized build about 80
# CPU-seconds, and its check still runs in under 2 seconds. Skipped when the version matches.
CARGO_DENY_VERSION=0.20.2
if [ "$(cargo-deny --version 2>/dev/null)" != "cargo-deny $CARGO_DENY_VERSION" ]; then
  log "cargo install cargo-deny $CARGO_DENY_VERSION (about a minute, once)"
  CARGO_PROFILE_DEV_DEBUG=false cargo install cargo-deny --version "$CARGO_DENY_VERSION" \
    --locked --debug --quiet
fi
unset CARGO_DENY_VERSION
