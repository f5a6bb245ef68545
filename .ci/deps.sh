#!/usr/bin/env bash
# Installs the outside tools the tests use, on a fresh Debian machine, and
# starts nothing that is already running. Idempotent; quiet when all is there.
set -euo pipefail

need_pkgs=()
command -v kcat >/dev/null 2>&1 || need_pkgs+=(kcat)

if ((${#need_pkgs[@]})); then
  echo "deps: installing ${need_pkgs[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
go mod download
