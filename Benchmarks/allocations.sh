#!/usr/bin/env bash
# Checks that the per-frame path allocates nothing: counts heap allocations (valgrind) of
# `soundcompass analyze` on a 5 s and a 20 s file and prints the difference per extra frame.
# Needs valgrind (Debian package `valgrind`). Not a test: it prints figures.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "allocations.sh: needs valgrind (apt-get install valgrind)" >&2; exit 1; }
swift build -c release --product soundcompass >&2
out=Benchmarks/out
mkdir -p "$out"
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 of SwiftNIO's C parts (linked in for
# `live --serve`): run a copy without debug information.
bin="$out/soundcompass-nodebug"
cp .build/release/soundcompass "$bin"
strip --strip-debug "$bin"
$bin synth "$out/alloc-5s.wav" --duration 5 --source speech@-30 --snr 20 --truth none 2>/dev/null
$bin synth "$out/alloc-20s.wav" --duration 20 --source speech@-30 --snr 20 --truth none 2>/dev/null
allocs() { valgrind --tool=memcheck "$bin" analyze "$1" -q --format "$2" 2>&1 >/dev/null | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,; }
frames5=$(( (5 * 48000 - 2048) / 1024 + 1 ))
frames20=$(( (20 * 48000 - 2048) / 1024 + 1 ))
for format in jsonl csv text; do
    a=$(allocs "$out/alloc-5s.wav" $format)
    b=$(allocs "$out/alloc-20s.wav" $format)
    per=$(python3 -c "print(f'{($b - $a) / ($frames20 - $frames5):.3f}')")
    echo "$format: $a allocations for $frames5 frames, $b for $frames20 frames: $per per extra frame"
done

# With an IMU log (front/back resolver, yaw lookup, two more fields): one 20 s log for both
# files, so that reading the log costs the same in both runs.
$bin synth "$out/alloc-turn-5s.wav" --duration 5 --source speech@-130 --turn 30:4@1 --snr 20 --truth none --imu none.csv 2>/dev/null
$bin synth "$out/alloc-turn-20s.wav" --duration 20 --source speech@-130 --turn 30:4@1 --snr 20 --truth none --imu "$out/alloc-turn.imu.csv" 2>/dev/null
rm -f none.csv
imuallocs() { valgrind --tool=memcheck "$bin" analyze "$1" --imu "$out/alloc-turn.imu.csv" -q --format jsonl 2>&1 >/dev/null | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,; }
a=$(imuallocs "$out/alloc-turn-5s.wav")
b=$(imuallocs "$out/alloc-turn-20s.wav")
per=$(python3 -c "print(f'{($b - $a) / ($frames20 - $frames5):.3f}')")
echo "jsonl with --imu: $a allocations for $frames5 frames, $b for $frames20 frames: $per per extra frame"

# The live path: ALSA capture (a replay through the file plugin), the live loop, the record writer.
$bin synth "$out/alloc-5s.raw" --duration 5 --source speech@-30 --snr 20 --file-format raw-f32le --truth none 2>/dev/null
$bin synth "$out/alloc-20s.raw" --duration 20 --source speech@-30 --snr 20 --file-format raw-f32le --truth none 2>/dev/null
conf="$out/alloc-replay.conf"
printf 'pcm.r5 { type file; slave.pcm { type null }; file "/dev/null"; infile "%s"; format "raw" }\npcm.r20 { type file; slave.pcm { type null }; file "/dev/null"; infile "%s"; format "raw" }\n' \
    "$PWD/$out/alloc-5s.raw" "$PWD/$out/alloc-20s.raw" > "$conf"
liveallocs() { ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:$PWD/$conf" valgrind --tool=memcheck "$bin" live --device "$1" -q --format jsonl 2>&1 >/dev/null | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,; }
a=$(liveallocs r5)
b=$(liveallocs r20)
per=$(python3 -c "print(f'{($b - $a) / ($frames20 - $frames5):.3f}')")
echo "live (ALSA replay, jsonl): $a allocations for $frames5 frames, $b for $frames20 frames: $per per extra frame"

# The same with the terminal compass, on a pseudo-terminal (`script`, from util-linux).
if command -v script >/dev/null; then
    compassallocs() { script -qec "ALSA_CONFIG_PATH=/usr/share/alsa/alsa.conf:$PWD/$conf valgrind --tool=memcheck $bin live --device $1 -q" /dev/null 2>&1 | sed -n 's/.*total heap usage: \([0-9,]*\) allocs.*/\1/p' | tr -d ,; }
    a=$(compassallocs r5)
    b=$(compassallocs r20)
    per=$(python3 -c "print(f'{($b - $a) / ($frames20 - $frames5):.3f}')")
    echo "live (ALSA replay, compass on a terminal): $a allocations for $frames5 frames, $b for $frames20 frames: $per per extra frame"
fi
