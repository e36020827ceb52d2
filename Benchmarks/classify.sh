#!/usr/bin/env bash
# The sound classifier's speed (Docs/Classification.md#speed): YAMNet's forward pass per patch
# on one core, then the whole pipeline's real-time factor (seconds of audio per CPU second) on a
# 60 s two-source scene, without and with --classify, and how many sources carried a label.
# Prints figures; not a test.
# Needs the model (scripts/fetch-model) and GNU time.
#
#   Benchmarks/classify.sh [seconds]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-60}"
flock /tmp/swift-build.lock swift build -c release --product soundcompass >/dev/null
flock /tmp/swift-build.lock swift build -c release --product ClassifierBenchmark >/dev/null
.build/release/ClassifierBenchmark 300
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
scene="$work/two.wav"
.build/release/soundcompass synth "$scene" --source speech@-40 --source pink@30 --duration "$seconds" -q 2>/dev/null
for options in "" "--classify"; do
    best=""
    for run in 1 2 3; do
        cpu=$( { /usr/bin/time -f "%U %S" .build/release/soundcompass analyze "$scene" -q --format jsonl $options >/dev/null; } 2>&1 | tail -1)
        total=$(awk '{print $1 + $2}' <<<"$cpu")
        if [ -z "$best" ] || awk "BEGIN{exit !($total < $best)}"; then best=$total; fi
    done
    factor=$(awk "BEGIN{printf \"%.0f\", $seconds / $best}")
    echo "pipeline ${options:-(default)}: ${best} s CPU for ${seconds} s of two sources (best of 3): ${factor}x real time"
done
# What was classified: the records' sources that carry a label (a source unlisted by the tracker
# is not classified, and a scene of "two sources" where one is never listed costs one source's
# patches). Printed, so that a figure above is read with the number of sources it really paid for.
.build/release/soundcompass analyze "$scene" -q --format jsonl --classify | python3 -c '
import json, sys
records = [json.loads(line) for line in sys.stdin]
labelled = [sum(1 for s in r.get("sources", []) if s.get("label") is not None) for r in records]
share = lambda n: 100.0 * sum(1 for k in labelled if k >= n) / max(1, len(labelled))
print(f"sources with a label: {sum(labelled) / max(1, len(labelled)):.2f} per record on average; "
      f"records with two or more: {share(2):.0f} %, with one or more: {share(1):.0f} %")'
