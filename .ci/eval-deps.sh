#!/usr/bin/env bash
# Installs what `make eval` needs on a fresh Debian machine: espeak-ng (the
# Armenian voice that speaks the synthetic calls), flite (English voices of
# real speakers), sox (pauses, overlaps, noise, music, telephone band,
# mixing), lame (the MP3 a job receives), Festival and MBROLA voices.
# Idempotent; quiet when everything is there.
set -euo pipefail

need_pkgs=()
command -v espeak-ng >/dev/null 2>&1 || need_pkgs+=(espeak-ng)
command -v sox >/dev/null 2>&1 || need_pkgs+=(sox)
command -v soxi >/dev/null 2>&1 || need_pkgs+=(sox)
command -v lame >/dev/null 2>&1 || need_pkgs+=(lame)
# FFmpeg decodes the telephone-band training calls of `make ubm`.
command -v ffmpeg >/dev/null 2>&1 || need_pkgs+=(ffmpeg)
# flite's voices are built from real speakers' recordings (CMU ARCTIC).
command -v flite >/dev/null 2>&1 || need_pkgs+=(flite)

# Festival (main): rab and ked, two men's diphones, and an HTS voice of slt.
command -v text2wave >/dev/null 2>&1 || need_pkgs+=(festival)
[ -d /usr/share/festival/voices/english/rab_diphone ] || need_pkgs+=(festvox-rablpc16k)
[ -d /usr/share/festival/voices/english/ked_diphone ] || need_pkgs+=(festvox-kdlpc16k)
[ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ] || need_pkgs+=(festvox-us-slt-hts)

# MBROLA's diphone voices (real speakers: us1 a woman, us2/us3/en1 men),
# spoken through eSpeak NG's mb-* voices. Debian ships mbrola in contrib and
# the voices in non-free; on a machine with only main, those two components
# of the same suite are added to apt's sources first.
mbrola_pkgs=()
command -v mbrola >/dev/null 2>&1 || mbrola_pkgs+=(mbrola)
for v in us1 us2 us3 en1; do
  [ -e "/usr/share/mbrola/$v/$v" ] || mbrola_pkgs+=("mbrola-$v")
done
if ((${#mbrola_pkgs[@]})); then
  need_pkgs+=("${mbrola_pkgs[@]}")
  if ! grep -rqsw 'non-free' /etc/apt/sources.list /etc/apt/sources.list.d/; then
    echo "eval-deps: adding Debian's contrib and non-free components (for mbrola)"
    SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
    suite=$(. /etc/os-release && echo "$VERSION_CODENAME")
    # The same mirror as the machine's own source of the suite (deb822 or
    # one-line format): no host is named here.
    uri=$(awk -v s="$suite" 'BEGIN { RS = ""; FS = "\n" } {
        u = ""; ok = 0
        for (i = 1; i <= NF; i++) {
          if ($i ~ /^URIs:/) { split($i, a, /[ \t]+/); u = a[2] }
          if ($i ~ /^Suites:/) { n = split($i, b, /[ \t]+/); for (j = 2; j <= n; j++) if (b[j] == s) ok = 1 }
        }
        if (ok && u != "") { print u; exit }
      }' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
    if [ -z "$uri" ]; then
      uri=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
        awk -v s="$suite" '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/) i++; i++ } if ($(i + 1) == s) { print $i; exit } }')
    fi
    if [ -z "$uri" ]; then
      echo "eval-deps: no apt source of Debian $suite found to add contrib and non-free to (mbrola needs them)" >&2
      exit 1
    fi
    printf 'Types: deb\nURIs: %s\nSuites: %s\nComponents: contrib non-free\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' "$uri" "$suite" |
      $SUDO tee /etc/apt/sources.list.d/hyscribe-eval-contrib-nonfree.sources >/dev/null
  fi
fi

if ((${#need_pkgs[@]})); then
  echo "eval-deps: installing ${need_pkgs[*]} from Debian's packages"
  export DEBIAN_FRONTEND=noninteractive
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null
  $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${need_pkgs[@]}" >/dev/null
fi
go mod download
