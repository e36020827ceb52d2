#!/usr/bin/env python3
"""Do two builds give the same answers? (issue 17: speed without changing answers)

Renders five deterministic 20 s scenes with `soundcompass synth` (spaced 15 cm and 60 cm at
48 kHz, binaural, coincident XY, and two talkers on a 15 cm pair at 16 kHz), analyses each
with both binaries (`analyze --format jsonl`, default settings for the scene's array) and
compares the records: first byte for byte, then, where lines differ, field by field, printing
for every numeric field that moved how many records it moved in and by how much at most.
Exits 1 when any record differs, so a script can tell.

Usage: Benchmarks/same-answers.py BEFORE_BINARY AFTER_BINARY [--seconds S] [--keep DIR]
Build a "before" binary first, for example:
  git stash; swift build -c release --product soundcompass; cp .build/release/soundcompass /tmp/sc-before
  git stash pop; swift build -c release --product soundcompass
  Benchmarks/same-answers.py /tmp/sc-before .build/release/soundcompass
"""
import json
import os
import subprocess
import sys
import tempfile


def argument(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


SECONDS = argument("--seconds", "20")

# (name, synth options, analyze options)
SCENES = [
    ("spaced-15cm", ["--source", "speech@-30", "--source", "pink@40@0-10", "--snr", "20"], []),
    ("spaced-60cm", ["--spacing", "0.6", "--source", "speech@20", "--source", "white@-50@12-16", "--snr", "10"],
     ["--spacing", "0.6"]),
    ("binaural", ["--array", "binaural", "--source", "speech@-60", "--source", "pink@75@5-9", "--snr", "20"],
     ["--array", "binaural"]),
    ("coincident", ["--array", "coincident", "--source", "speech@30", "--source", "pink@-45@10-14", "--snr", "20"],
     ["--array", "coincident"]),
    ("two-talkers-16k", ["--rate", "16000", "--source", "speech@-40", "--source", "speech@30", "--snr", "20"], []),
]


def flatten(value, prefix=""):
    """{dotted path: leaf} of a record (lists by index)."""
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}{key}."))
        return out
    if isinstance(value, list):
        out = {}
        for i, item in enumerate(value):
            out.update(flatten(item, f"{prefix}{i}."))
        out[f"{prefix}count"] = len(value)
        return out
    return {prefix.rstrip("."): value}


def main():
    paths = [a for a in sys.argv[1:3]]
    if len(paths) != 2 or not all(os.path.exists(p) for p in paths):
        print("usage: Benchmarks/same-answers.py BEFORE_BINARY AFTER_BINARY [--seconds S] [--keep DIR]",
              file=sys.stderr)
        sys.exit(2)
    before, after = paths
    keep = argument("--keep", None)
    tmp = keep or tempfile.mkdtemp(prefix="same-answers-")
    os.makedirs(tmp, exist_ok=True)
    differing = 0
    for name, synth, analyze in SCENES:
        wav = os.path.join(tmp, f"{name}.wav")
        if not os.path.exists(wav):
            subprocess.run([after, "synth", wav, "--duration", SECONDS] + synth, check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        outputs = []
        for binary in (before, after):
            run = subprocess.run([binary, "analyze", wav, "--format", "jsonl", "-q"] + analyze,
                                 capture_output=True, text=True, check=True)
            outputs.append(run.stdout.splitlines())
        a, b = outputs
        changed = [i for i in range(max(len(a), len(b))) if i >= len(a) or i >= len(b) or a[i] != b[i]]
        if not changed:
            print(f"{name}: {len(a)} records, identical to the byte")
            continue
        differing += 1
        print(f"{name}: {len(changed)} of {max(len(a), len(b))} records differ"
              + (f" (record counts {len(a)} and {len(b)})" if len(a) != len(b) else ""))
        moved = {}
        for i in changed:
            if i >= len(a) or i >= len(b):
                continue
            x, y = flatten(json.loads(a[i])), flatten(json.loads(b[i]))
            for key in sorted(set(x) | set(y)):
                u, v = x.get(key), y.get(key)
                if u == v:
                    continue
                count, largest = moved.get(key, (0, 0.0))
                delta = abs(u - v) if isinstance(u, (int, float)) and isinstance(v, (int, float)) \
                    and not isinstance(u, bool) else float("inf")
                moved[key] = (count + 1, max(largest, delta))
        for key, (count, largest) in sorted(moved.items(), key=lambda item: -item[1][0])[:12]:
            print(f"  {key}: {count} records, largest change {largest:g}")
    if not keep:
        for f in os.listdir(tmp):
            os.remove(os.path.join(tmp, f))
        os.rmdir(tmp)
    sys.exit(1 if differing else 0)


if __name__ == "__main__":
    main()
