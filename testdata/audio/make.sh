#!/bin/sh
# Regenerates the audio fixtures in this directory. The tests never run this:
# they use the committed files. Needs lame, sox (with libsox-fmt-mp3), ffmpeg,
# espeak-ng and openssl (Debian 12: LAME 3.100, SoX 14.4.2, FFmpeg 5.1,
# eSpeak NG 1.51). SoX runs with -R so that its dither repeats: rerunning
# gives the same bytes. See README.md for each file and its duration.
set -eu
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Deterministic pseudo-random bytes: the AES-CTR keystream of a fixed key, so
# that rerunning the script gives the same junk.
prng() { # prng SEEDHEX COUNT
	head -c "$2" /dev/zero | openssl enc -aes-128-ctr -nosalt \
		-K "$1" -iv 00000000000000000000000000000000 | head -c "$2"
}

# Short Armenian speech: espeak-ng speaks 22.05 kHz; lame resamples to 16 kHz
# mono, 32 kbit/s CBR (MPEG-2 layer III). Its 144-byte frames are too small
# for LAME's Info frame, so the file has none.
espeak-ng -v hy -s 150 -w "$tmp/speech.wav" \
	"Բարև ձեզ։ Սա հայերեն խոսքի կարճ փորձնական ձայնագրություն է։"
lame --quiet -m m --resample 16 -b 32 "$tmp/speech.wav" speech-mono-16k.mp3

# A two-party call, 6 s, 22.05 kHz stereo, 64 kbit/s CBR, plain (not joint)
# stereo so the silent channel stays silent. Left: 440 Hz at 0-1.5 s and
# 3-4.5 s; right: 660 Hz at 1.5-3 s and 4.5-6 s; digital silence elsewhere.
sox -R -n -r 22050 -c 1 -b 16 "$tmp/sil.wav" trim 0 1.5
sox -R -n -r 22050 -c 1 -b 16 "$tmp/l.wav" synth 1.5 sine 440 vol 0.5 fade 0.01 1.5 0.01
sox -R -n -r 22050 -c 1 -b 16 "$tmp/r.wav" synth 1.5 sine 660 vol 0.5 fade 0.01 1.5 0.01
sox -R "$tmp/l.wav" "$tmp/sil.wav" "$tmp/l.wav" "$tmp/sil.wav" "$tmp/left.wav"
sox -R "$tmp/sil.wav" "$tmp/r.wav" "$tmp/sil.wav" "$tmp/r.wav" "$tmp/right.wav"
sox -R -M "$tmp/left.wav" "$tmp/right.wav" "$tmp/call.wav"
lame --quiet -m s -b 64 "$tmp/call.wav" call-stereo-22k.mp3

# 3 s of digital silence, 44.1 kHz mono, 32 kbit/s CBR (MPEG-1).
sox -R -n -r 44100 -c 1 -b 16 "$tmp/silence.wav" trim 0 3
lame --quiet -m m -b 32 --resample 44.1 "$tmp/silence.wav" silence-mono-44k.mp3

# 2 s of a 300 Hz tone, 8 kHz mono, 16 kbit/s CBR (MPEG-2.5).
sox -R -n -r 8000 -c 1 -b 16 "$tmp/tone8k.wav" synth 2 sine 300 vol 0.5
lame --quiet -m m -b 16 "$tmp/tone8k.wav" tone-mono-8k.mp3

# 1 s of 440 Hz at 22.05 kHz mono, 32 kbit/s CBR (MPEG-2): padded frames
# whose size go-mp3 v0.3.4 got wrong (the decoder this service once used).
sox -R -n -r 22050 -c 1 -b 16 "$tmp/tone22k.wav" synth 1 sine 440 vol 0.5
lame --quiet -m m -b 32 "$tmp/tone22k.wav" tone-mono-22k.mp3

# 1 s of 440 Hz at 11.025 kHz mono, 24 kbit/s CBR (MPEG-2.5).
sox -R -n -r 11025 -c 1 -b 16 "$tmp/tone11k.wav" synth 1 sine 440 vol 0.5
lame --quiet -m m -b 24 "$tmp/tone11k.wav" tone-mono-11k.mp3

# 3 s VBR (lame -V 6, joint stereo, 44.1 kHz) with a Xing frame: a sweep on
# the left and quiet pink noise on the right so the bitrate varies.
sox -R -n -r 44100 -c 2 -b 16 "$tmp/vbr.wav" synth 3 sine 200-4000 pinknoise remix 1v0.4 2v0.1
lame --quiet -V 6 "$tmp/vbr.wav" vbr-stereo-44k.mp3

# 2 s at 128 kbit/s CBR, 44.1 kHz joint stereo, with an ID3v2.3 tag (Armenian
# title, 1 KiB of padding) in front and an ID3v1 tag at the end.
sox -R -n -r 44100 -c 2 -b 16 "$tmp/cbr.wav" synth 2 sine 500 sine 750 vol 0.4
lame --quiet -b 128 --add-id3v2 --pad-id3v2-size 1024 \
	--tt "Փորձնական զանգ" --ta "hyscribe" --tl "testdata" --ty 2024 \
	"$tmp/cbr.wav" id3-stereo-44k.mp3

# The first 1000 bytes of the same encoding without tags: the Info frame, one
# audio frame and part of the next.
lame --quiet -b 128 "$tmp/cbr.wav" "$tmp/cbr.mp3"
head -c 1000 "$tmp/cbr.mp3" >truncated.mp3

# 2000 bytes of pseudo-random junk, then speech-mono-16k.mp3.
prng 6a756e6b000000000000000000000000 2000 >"$tmp/junk"
cat "$tmp/junk" speech-mono-16k.mp3 >junk-prefix.mp3

# A two-speaker call in mono, 16 kHz, 24 kbit/s: speaker 1 (espeak-ng hy+m3,
# pitch 35) and speaker 2 (hy+f2, pitch 70) take turns A B A B with pauses.
# The turns: see README.md. Used by the diarization tests end to end.
i=0
for turn in "m3 35 160 Բարև ձեզ, սպասարկման կենտրոնն է, ինչով կարող եմ օգնել։" \
	"f2 70 150 Բարև, ես երեկ պատվեր եմ տվել և ոչինչ չեմ ստացել։" \
	"m3 35 160 Խնդրում եմ ասեք պատվերի համարը։" \
	"f2 70 150 Համարը տասներկու հազար երեք հարյուր է։"; do
	set -- $turn
	v=$1 p=$2 s=$3; shift 3
	espeak-ng -v "hy+$v" -p "$p" -s "$s" -w "$tmp/t$i-raw.wav" "$*"
	sox -R "$tmp/t$i-raw.wav" -r 16000 -c 1 -b 16 "$tmp/t$i.wav" \
		silence 1 0.02 0.5% reverse silence 1 0.02 0.5% reverse
	i=$((i + 1))
done
sox -R -n -r 16000 -c 1 -b 16 "$tmp/p3.wav" trim 0 0.3
sox -R -n -r 16000 -c 1 -b 16 "$tmp/p6.wav" trim 0 0.6
sox -R "$tmp/p3.wav" "$tmp/t0.wav" "$tmp/p6.wav" "$tmp/t1.wav" "$tmp/p6.wav" \
	"$tmp/t2.wav" "$tmp/p6.wav" "$tmp/t3.wav" "$tmp/p3.wav" "$tmp/call-mono.wav"
lame --quiet -m m -b 24 "$tmp/call-mono.wav" call-mono-16k.mp3

# The same call as stereo that is really mono (issue 21), from the committed
# call-mono-16k.mp3 as FFmpeg decodes it: dual mono (the call on both
# channels, joint stereo) and the call on the left beside digital silence
# on the right (plain stereo), 16 kHz, 48 kbit/s.
ffmpeg -v error -i call-mono-16k.mp3 -ac 1 -ar 16000 "$tmp/call-dec.wav"
sox -R "$tmp/call-dec.wav" "$tmp/call-silent.wav" vol 0
sox -R -M "$tmp/call-dec.wav" "$tmp/call-dec.wav" "$tmp/call-dual.wav"
sox -R -M "$tmp/call-dec.wav" "$tmp/call-silent.wav" "$tmp/call-onesilent.wav"
lame --quiet -m j -b 48 "$tmp/call-dual.wav" call-dualmono-16k.mp3
lame --quiet -m s -b 48 "$tmp/call-onesilent.wav" call-onesilent-16k.mp3

# The same call with 12 s of synthetic music on hold (issue 21): an A-major
# pad swelling slowly under a plucked melody of half-second notes, as loud
# as the voices; before the call, and in the pause after its first turn
# (at 5.16 s). 16 kHz mono, 32 kbit/s.
sox -R -n -r 16000 -c 1 -b 16 "$tmp/pad.wav" synth 12 sine 220 synth sine mix 277.2 \
	synth sine mix 329.6 synth sine amod 0.25 30 vol 0.12
i=0
for n in E5 C#5 A4 B4 C#5 E5 F#5 E5 C#5 B4 A4 B4 C#5 A4 B4 E4 E5 C#5 A4 B4 C#5 E5 F#5 E5; do
	sox -R -n -r 16000 -c 1 -b 16 "$tmp/note$(printf %02d $i).wav" synth 0.5 pluck "$n" vol 0.4
	i=$((i + 1))
done
sox -R "$tmp"/note*.wav "$tmp/melody.wav"
sox -R -m -v 1 "$tmp/pad.wav" -v 1 "$tmp/melody.wav" "$tmp/music.wav"
sox -R "$tmp/music.wav" "$tmp/call-dec.wav" "$tmp/musicfirst.wav"
sox -R "$tmp/call-dec.wav" "$tmp/call-a.wav" trim 0 5.16
sox -R "$tmp/call-dec.wav" "$tmp/call-b.wav" trim 5.16
sox -R "$tmp/call-a.wav" "$tmp/music.wav" "$tmp/call-b.wav" "$tmp/musicmid.wav"
lame --quiet -m m -b 32 "$tmp/musicfirst.wav" call-musicfirst-16k.mp3
lame --quiet -m m -b 32 "$tmp/musicmid.wav" call-musicmid-16k.mp3

# Two close women's voices in the telephone band: the eval's call
# close-female-tel-3 (eSpeak NG hy+f5 pitch 70 and hy+f2 pitch 75, the
# ten-turn dialogue, sox sinc 300-3400 at 8 kHz, LAME 16 kbit/s MPEG-2.5),
# made by cmd/evaldiarize itself (every SoX call there runs with -R).
(cd ../.. && go run ./cmd/evaldiarize -keep "$tmp/eval" -only close-female-tel >/dev/null)
cp "$tmp/eval/close-female-tel-3.mp3" call-close-female-tel-8k.mp3

# Not MP3 at all.
prng 72616e646f6d00000000000000000000 4096 >random.bin
: >empty.mp3
sox -R -n -r 8000 -c 1 -b 16 tone.wav synth 0.5 sine 440 vol 0.5
sox -R -n -r 8000 -c 1 -b 16 tone.aiff synth 0.5 sine 440 vol 0.5
sox -R -n -r 8000 -c 1 -b 16 tone.flac synth 0.5 sine 440 vol 0.5
ff() { ffmpeg -nostdin -loglevel error -y -f lavfi -i sine=frequency=440:sample_rate=16000:duration=1 \
	-fflags +bitexact -flags:a +bitexact "$@"; }
ff -c:a aac -b:a 24k tone.m4a
ff -c:a aac -b:a 24k -f adts tone.aac
ff -c:a libvorbis -q:a 0 tone.ogg
ff -ar 16000 -c:a mp2 -b:a 32k tone.mp2

ls -l
