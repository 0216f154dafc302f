#!/usr/bin/env bash
# CI's background compiler: `scripts/prebuild.sh SUITE...` runs `scripts/suites/SUITE.sh
# --prebuild` for each suite in turn, which compiles what that suite will compile (the same
# cargo commands, so the same artifacts in the one target/) and runs nothing. The python suite
# compiles nothing there: maturin moves its library out of target/, so two runs must not overlap.
#
# Why: on CI's 2 cores the suites alternate between compiling (both cores busy) and running
# tests (mostly one: pytest, JUnit, a browser, a client against the server). scripts/test.sh
# starts this beside the setup and the suites, so the next suites compile while the current one
# runs its tests, and the rust suite's compile overlaps the setup's downloads. Cargo's lock on
# target/ lets one cargo compile at a time and releases it while tests run; when a suite reaches
# a build that is done here, cargo finds it fresh. A command that fails here is not reported:
# the suite runs the same command and reports it.
#
# Output goes to stdout (scripts/test.sh sends it to target/suite-logs/prebuild.log), with each
# suite's seconds.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
export ROOT
for s in "$@"; do
  start=$(date +%s)
  echo "=== prebuild: $s"
  bash "scripts/suites/$s.sh" --prebuild
  echo "=== prebuild: $s exit $? after $(( $(date +%s) - start ))s"
done
