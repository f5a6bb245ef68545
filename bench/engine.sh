#!/usr/bin/env bash
# make bench, part three: time to transcript against a stand-in speech
# engine that behaves like a GPU server (CAPACITY requests at once, the rest
# queued, audio seconds × RTF each). Builds hyscribe and bench/engine, which
# runs `hyscribe serve` on embedded defaults, prints issue 28's three
# figures and rewrites its section of docs/performance.md. About 4 minutes,
# most of it the engine's simulated work (little CPU).
#   CAPACITY=4 RTF=0.05 bash bench/engine.sh [-calls 20 -burst 40 -out '']
set -euo pipefail
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
go build -o "$out/hyscribe" ./cmd/hyscribe
go build -o "$out/engine" ./bench/engine
timeout 900 "$out/engine" -bin "$out/hyscribe" -capacity "${CAPACITY:-4}" -rtf "${RTF:-0.05}" \
  -label "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" -out docs/performance.md "$@"
