#!/usr/bin/env bash
# Processing latency of `soundcompass live` at its default settings (48 kHz, period = hop =
# 1024 frames, four bands), through the real ALSA capture path: a speech recording replayed by
# ALSA's file plugin. Prints the session summaries (p50/p99/max per period).
#   Benchmarks/latency.sh [SECONDS]      (default 60 s unpaced, then 10 s paced to real time)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
swift build -c release --product soundcompass >/dev/null
bin=.build/release/soundcompass
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" synth "$work/speech.raw" --source speech@-40 --source pink@50@2-5 --duration "$seconds" \
    --snr 20 --file-format raw-f32le --truth none 2>/dev/null
printf 'pcm.replay { type file; slave.pcm { type null }; file "/dev/null"; infile "%s"; format "raw" }\n' \
    "$work/speech.raw" > "$work/replay.conf"
export ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$work/replay.conf"
echo "== unpaced, $seconds s of audio, records to /dev/null"
"$bin" live --device replay --format jsonl 2>&1 >/dev/null | tail -1
echo "== paced to real time, 10 s, records to /dev/null"
"$bin" live --device replay --format jsonl --real-time --duration 10 2>&1 >/dev/null | tail -1
