#!/bin/sh
# Rebuilds the scripted calls (see scripted.go for their lines): every
# utterance a tone of its own frequency, so the fake engine knows which line
# it hears in any piece of them. SoX 14.4.2 (-R: repeatable), LAME 3.100.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# channel NAME "start end hz" ...: a 16 s 16 kHz mono channel.
channel() {
	name=$1; shift
	args=""
	for u in "$@"; do
		set -- $u
		len=$(echo "$2 - $1" | bc)
		sox -R -n -r 16000 -c 1 -b 16 "$tmp/u.wav" synth "$len" sine "$3" vol 0.5 fade 0.01 "$len" 0.01
		sox -R "$tmp/u.wav" "$tmp/p-$name-$1.wav" pad "$1"
		args="$args $tmp/p-$name-$1.wav"
	done
	sox -R -n -r 16000 -c 1 -b 16 "$tmp/silence.wav" trim 0 16
	sox -R -m -v 1 "$tmp/silence.wav" $(for a in $args; do echo "-v 1 $a"; done) "$tmp/$name.wav" trim 0 16
}
channel a "0.30 2.30 220" "5.00 7.20 240" "9.40 10.60 260" "14.00 15.20 280"
channel b "2.80 4.60 820" "7.70 9.00 860" "11.10 13.60 900"
sox -R -M "$tmp/a.wav" "$tmp/b.wav" "$tmp/stereo.wav"
sox -R -m -v 1 "$tmp/a.wav" -v 1 "$tmp/b.wav" "$tmp/mono.wav"
lame --quiet -m s -b 64 "$tmp/stereo.wav" scripted-call-stereo-16k.mp3
lame --quiet -m m -b 32 "$tmp/mono.wav" scripted-call-mono-16k.mp3
lame --quiet -m m -b 32 "$tmp/a.wav" scripted-single-16k.mp3
