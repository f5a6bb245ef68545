#!/usr/bin/env bash
# Installs what `make eval` needs on a fresh Debian machine: espeak-ng (the
# Armenian voice that speaks the synthetic calls), flite (English voices of
# real speakers), sox (pauses, overlaps, noise, music, telephone band,
# mixing) and lame (the MP3 a job receives). Idempotent; quiet when
# everything is there.
set -euo pipefail

need_pkgs=()
command -v espeak-ng >/dev/null 2>&1 || need_pkgs+=(espeak-ng)
command -v sox >/dev/null 2>&1 || need_pkgs+=(sox)
command -v soxi >/dev/null 2>&1 || need_pkgs+=(sox)
command -v lame >/dev/null 2>&1 || need_pkgs+=(lame)
# flite's voices are built from real speakers' recordings (CMU ARCTIC).
command -v flite >/dev/null 2>&1 || need_pkgs+=(flite)

if ((${#need_pkgs[@]})); then
  echo "eval-deps: installing ${need_pkgs[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq >/dev/null
  $SUDO apt-get install -y -qq "${need_pkgs[@]}" >/dev/null
fi
go mod download
