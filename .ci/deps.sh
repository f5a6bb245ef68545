#!/usr/bin/env bash
# Installs the outside tools the tests use, on a fresh Debian machine, and
# starts the servers they need unless already running. Idempotent; quiet
# when all is there.
set -euo pipefail
cd "$(dirname "$0")/.."

need_pkgs=()
command -v kcat >/dev/null 2>&1 || need_pkgs+=(kcat)
command -v curl >/dev/null 2>&1 || need_pkgs+=(curl)
command -v clickhouse-server >/dev/null 2>&1 || need_pkgs+=(clickhouse-server)
command -v clickhouse-client >/dev/null 2>&1 || need_pkgs+=(clickhouse-client)

if ((${#need_pkgs[@]})); then
  echo "deps: installing ${need_pkgs[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  # policy-rc.d may refuse to start the packaged service: that is fine, the
  # tests start their own server below.
  $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
go mod download
bash .ci/clickhouse.sh
