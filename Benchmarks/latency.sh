#!/usr/bin/env bash
# Processing latency of `soundcompass live` at its default settings (48 kHz, period = hop =
# 1024 frames, four bands), through the real ALSA capture path: recordings replayed by ALSA's
# file plugin. Prints the session summaries (p50/p99/max per period).
#   Benchmarks/latency.sh [SECONDS]      (default 60 s unpaced, then 20 s paced to real time,
#                                         then the same 20 s with --classify, two sources heard)
# $SOUNDCOMPASS_BINARY: the binary to measure (default: a release build, made here).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
bin="${SOUNDCOMPASS_BINARY:-}"
if [ -z "$bin" ]; then
    swift build -c release --product soundcompass >/dev/null
    bin=.build/release/soundcompass
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" synth "$work/speech.raw" --source speech@-40 --source pink@50@2-5 --duration "$seconds" \
    --snr 20 --file-format raw-f32le --truth none 2>/dev/null
"$bin" synth "$work/two.raw" --source speech@-40 --source pink@35 --duration 20 \
    --snr 20 --file-format raw-f32le --truth none 2>/dev/null
printf 'pcm.replay { type file; slave.pcm { type null }; file "/dev/null"; infile "%s"; format "raw" }\npcm.two { type file; slave.pcm { type null }; file "/dev/null"; infile "%s"; format "raw" }\n' \
    "$work/speech.raw" "$work/two.raw" > "$work/replay.conf"
export ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/replay.conf"
echo "== unpaced, $seconds s of audio, records to /dev/null"
"$bin" live --device replay --format jsonl 2>&1 >/dev/null | tail -1
echo "== paced to real time, 20 s of two sources (speech -40, pink noise +35), records to /dev/null"
"$bin" live --device two --format jsonl --real-time --duration 20 2>&1 >/dev/null | tail -1
if [ -f "${SOUNDCOMPASS_MODEL_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/soundcompass}/yamnet.weights" ]; then
    echo "== the same with --classify (patches built and classified on the labeler's own thread), and its CPU"
    /usr/bin/time -f "CPU %U s user + %S s system for 20 s of audio" \
        "$bin" live --device two --format jsonl --real-time --duration 20 --classify 2>&1 >/dev/null | tail -2
else
    echo "== --classify skipped: no model (scripts/fetch-model)"
fi
