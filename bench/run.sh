#!/usr/bin/env bash
# make bench, part two: the API and pipeline under load. Builds hyscribe and
# the bench helpers, installs wrk (Debian package) if missing, then runs
# bench/load, which starts the processes on loopback, prints the figures and
# rewrites its section of docs/performance.md. Postgres comes from
# HYSCRIBE_TEST_DATABASE_URL (the Makefile sets it; .ci/deps.sh starts it).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v wrk >/dev/null 2>&1; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  echo "bench: installing wrk from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get install -y -qq wrk >/dev/null 2>&1 || { $SUDO apt-get update -qq >/dev/null; $SUDO apt-get install -y -qq wrk >/dev/null; }
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/hyscribe" ./cmd/hyscribe
go build -o "$out/barefiber" ./bench/barefiber
go build -o "$out/load" ./bench/load
# Bounded: the driver gives every phase its own deadline; this is the backstop.
timeout 600 "$out/load" -bin "$out/hyscribe" -bare "$out/barefiber" -lua bench/poll.lua "$@"
