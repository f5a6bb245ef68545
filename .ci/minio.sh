#!/usr/bin/env bash
# MinIO for hyscribe's S3 uploads, built from the Go module proxy (no other
# download), cached in .cache/bin (git-ignored): the first build takes a few
# minutes, later runs are instant.
#
#   .ci/minio.sh            build the binary if missing (make test / .ci/deps.sh)
#   .ci/minio.sh start      also run a server on $MINIO_ADDR (127.0.0.1:19900), data in
#                           .cache/minio, bucket notifications to Kafka on
#                           $MINIO_KAFKA_BROKERS (127.0.0.1:9092: make run's embedded
#                           cluster), topic hyscribe.storage.events.v1. Idempotent.
#   .ci/minio.sh stop       stop the server `start` started
#
# The tests start MinIO processes of their own from the binary (each with its
# own Kafka); `start` is for trying S3 uploads by hand with make run.
set -euo pipefail
cd "$(dirname "$0")/.."

# A pseudo-version: MinIO tags releases as RELEASE.<date>, which the module
# proxy does not serve. This is master of 2026-02-12, which builds with Go 1.26.
MINIO_VERSION="${MINIO_VERSION:-v0.0.0-20260212201848-7aac2a2c5b7c}"
BIN_DIR="$PWD/.cache/bin"
BIN="$BIN_DIR/minio"
STAMP="$BIN_DIR/minio.version"
# A copy per machine and version outside the work tree, so a fresh clone on
# a machine that built it before (CI runs in one) need not build again.
SHARED="${HYSCRIBE_TOOL_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hyscribe}/minio-$MINIO_VERSION"
ADDR="${MINIO_ADDR:-127.0.0.1:19900}"
DATA="$PWD/.cache/minio"

build() {
  if [ -x "$BIN" ] && [ "$(cat "$STAMP" 2>/dev/null)" = "$MINIO_VERSION" ]; then
    return 0
  fi
  mkdir -p "$BIN_DIR"
  if [ -x "$SHARED" ]; then
    cp "$SHARED" "$BIN.tmp" && mv "$BIN.tmp" "$BIN"
  else
    echo "minio: building github.com/minio/minio@$MINIO_VERSION into .cache/bin (a few minutes, once per machine)"
    GOBIN="$BIN_DIR" GOFLAGS=-buildvcs=false go install "github.com/minio/minio@$MINIO_VERSION"
    mkdir -p "$(dirname "$SHARED")" && cp "$BIN" "$SHARED.tmp" && mv "$SHARED.tmp" "$SHARED"
  fi
  echo "$MINIO_VERSION" >"$STAMP"
}

answers() { curl -fsS -o /dev/null "http://$ADDR/minio/health/ready" 2>/dev/null; }

start() {
  build
  if answers; then return 0; fi
  mkdir -p "$DATA"
  echo "minio: starting on $ADDR (data $DATA, log .cache/minio.log)"
  MINIO_ROOT_USER="${MINIO_ROOT_USER:-hyscribe}" \
  MINIO_ROOT_PASSWORD="${MINIO_ROOT_PASSWORD:-hyscribe-secret}" \
  MINIO_BROWSER=off MINIO_UPDATE=off \
  MINIO_NOTIFY_KAFKA_ENABLE_HYSCRIBE=on \
  MINIO_NOTIFY_KAFKA_BROKERS_HYSCRIBE="${MINIO_KAFKA_BROKERS:-127.0.0.1:9092}" \
  MINIO_NOTIFY_KAFKA_TOPIC_HYSCRIBE=hyscribe.storage.events.v1 \
  MINIO_NOTIFY_KAFKA_QUEUE_DIR_HYSCRIBE="$DATA/.notify-queue" \
    nohup "$BIN" server --quiet --address "$ADDR" --console-address 127.0.0.1:0 "$DATA/data" \
    >>"$PWD/.cache/minio.log" 2>&1 &
  echo $! >"$PWD/.cache/minio.pid"
  for _ in $(seq 1 100); do answers && return 0; sleep 0.2; done
  echo "minio: not ready on $ADDR; see .cache/minio.log" >&2
  exit 1
}

stop() {
  [ -f .cache/minio.pid ] || return 0
  kill "$(cat .cache/minio.pid)" 2>/dev/null || true
  rm -f .cache/minio.pid
}

case "${1:-build}" in
  build) build ;;
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 [build|start|stop]" >&2; exit 2 ;;
esac
