#!/usr/bin/env bash
# `make run`'s MP3 decoder: hyscribe decodes uploads with FFmpeg
# (HYSCRIBE_FFMPEG, default ffmpeg on PATH) and `serve` refuses to start
# without it. Installs Debian's ffmpeg when it is missing and this can
# (root, apt-get); otherwise says exactly what to install.
set -euo pipefail
bin="${HYSCRIBE_FFMPEG:-ffmpeg}"
command -v "$bin" >/dev/null 2>&1 && exit 0
if [ "$bin" = ffmpeg ] && [ "$(id -u)" = 0 ] && command -v dpkg >/dev/null 2>&1; then
  echo "make run: installing Debian's ffmpeg, the MP3 decoder"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends ffmpeg >/dev/null
  exit 0
fi
echo "make run: $bin not found; hyscribe decodes MP3 with FFmpeg: install Debian's ffmpeg package or set HYSCRIBE_FFMPEG to its path" >&2
exit 1
