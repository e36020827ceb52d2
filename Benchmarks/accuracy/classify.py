#!/usr/bin/env python3
"""What each source is: speech at -40 degrees and a two-tone siren at +30 degrees together in a
room (pyroomacoustics, RT60 0.3 s; anechoic as a second row), analysed with `--classify`. For
each source, the share of its classified patches whose top three labels hold its own class
(Speech for the talker; a siren class for the siren): the target is >= 80 % each.

An evaluation that prints figures, not a test. Needs pyroomacoustics, scipy, espeak-ng, the
YAMNet model (scripts/fetch-model) and the release build of soundcompass ($SOUNDCOMPASS_BINARY).

Usage: Benchmarks/accuracy/classify.py [--seconds S] [--rt60 LIST] [--siren-db DB] [--azimuths SPEECH,SIREN] [--cache DIR]

--azimuths moves the talker and the siren (default -40,30: the issue's scene); a second layout
such as 20,-60 checks that a change is not tuned to the first.

Levels: the talker's dry RMS is 0.05; the siren's is --siren-db (default +10) above it (a siren
heard at a few tens of metres is 20-30 dB louder than a talker at 1.5 m; +10 is a modest
difference). The rendered pair is scaled to a peak of 0.9 (a recorder's gain set for the
loudest sound): YAMNet's scores depend on level (AudioSet's clips are loud), see
Docs/Classification.md.

A record's source is matched to a truth when its azimuth is within 15 degrees of it; a patch is
one distinct label of one source (labels change once per 0.48 s patch hop), counted once per
0.48 s of records.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pyroomacoustics as pra
from scipy.io import wavfile
from scipy.signal import resample_poly

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("SOUNDCOMPASS_BINARY") or os.path.join(ROOT, ".build", "release", "soundcompass")
FS = 48000
SPACING = 0.15
ROOM = [6.0, 5.0, 3.0]
CENTRE = np.array([3.0, 2.0, 1.5])
DISTANCE = 1.5
SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Please turn left at the second crossing and wait for the green light.",
    "Where did you put the keys? I thought they were on the kitchen table.",
    "Sound travels at about three hundred and forty metres per second in air.",
]
SIRENS = {"Siren", "Civil defense siren", "Police car (siren)", "Ambulance (siren)",
          "Fire engine, fire truck (siren)", "Emergency vehicle"}
# The angular frequency (rad/s) of each of the 257 bins of YAMNet's 512-point FFT at 16 kHz.
OMEGA = 2 * np.pi * 16000 * np.arange(257) / 512


def delay(azimuth):
    """The right microphone's delay behind the left (s) for a source at `azimuth` (deg), free field."""
    return -SPACING * np.sin(np.radians(azimuth)) / 343.0


def speech(seconds):
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.wav")
        subprocess.run(["espeak-ng", "-s", "150", "-w", path, " ".join(SENTENCES)], check=True)
        rate, data = wavfile.read(path)
    x = resample_poly(data.astype(np.float64) / 32768.0, FS, rate)
    x = np.tile(x, int(np.ceil(seconds * FS / len(x))))[: int(seconds * FS)]
    return x / np.sqrt(np.mean(x ** 2)) * 0.05


def siren(seconds, rms, low=770.0, high=960.0, half=0.6):
    """TestSignals' Generators.twoToneSiren: harmonics 1..9 at 1/k, alternating every `half` s."""
    t = np.arange(int(seconds * FS)) / FS
    f = np.where((t // half) % 2 == 0, low, high)
    phase = 2 * np.pi * np.cumsum(f) / FS
    x = sum(np.sin(k * phase) / k * (k * f < FS / 2) for k in range(1, 10))
    return x / np.sqrt(np.mean(x ** 2)) * rms


def position(azimuth):
    theta = np.radians(azimuth)
    return CENTRE + DISTANCE * np.array([np.sin(theta), np.cos(theta), 0.0])


def render(sources, rt60):
    if rt60 == 0:
        r = pra.ShoeBox(ROOM, fs=FS, max_order=0)
    else:
        absorption, max_order = pra.inverse_sabine(rt60, ROOM)
        r = pra.ShoeBox(ROOM, fs=FS, materials=pra.Material(absorption), max_order=max_order)
    mics = np.array([[CENTRE[0] - SPACING / 2, CENTRE[0] + SPACING / 2], [CENTRE[1]] * 2, [CENTRE[2]] * 2])
    r.add_microphone_array(pra.MicrophoneArray(mics, FS))
    n = len(sources[0][0])
    for dry, azimuth in sources:
        r.add_source(position(azimuth), signal=dry)
    r.simulate()
    return r.mic_array.signals[:, :n]


def evaluate(rt60, seconds, siren_db, cache, azimuths=(-40.0, 30.0)):
    talker, horn = azimuths
    layout = "" if azimuths == (-40.0, 30.0) else f"-{talker:+.0f}{horn:+.0f}"
    key = os.path.join(cache, f"classify-{rt60}-{seconds}-{siren_db}{layout}.wav") if cache else None
    if key and os.path.exists(key):
        path = key
    else:
        wet = render([(speech(seconds), talker), (siren(seconds, 0.05 * 10 ** (siren_db / 20)), horn)], rt60)
        wet = wet / np.max(np.abs(wet)) * 0.9
        path = key or tempfile.mktemp(suffix=".wav")
        wavfile.write(path, FS, wet.T.astype(np.float32))
    out = subprocess.run([BINARY, "analyze", path, "--format", "jsonl", "-q", "--spacing", str(SPACING), "--classify"],
                         check=True, capture_output=True, text=True).stdout
    truths = {"speech": (talker, {"Speech"}), "siren": (horn, SIRENS)}
    seen = {name: {} for name in truths}  # per truth: patch slot -> hit
    for line in out.splitlines():
        r = json.loads(line)
        if r["time"] < 1.5:
            continue
        for s in r.get("sources", []):
            if not s.get("active") or s.get("label") is None:
                continue
            for name, (azimuth, classes) in truths.items():
                if abs(s["azimuth"] - azimuth) <= 15:
                    top = [s["label"]] + s["next_labels"]
                    seen[name][int(r["time"] / 0.48)] = any(t in classes for t in top)
    cells = []
    for name in truths:
        hits = list(seen[name].values())
        share = 100.0 * sum(hits) / len(hits) if hits else 0.0
        cells.append(f"{name}: {share:.0f} % of {len(hits)} patches")
    print(f"RT60 {rt60:.1f} s: " + "; ".join(cells), flush=True)


def main():
    args = sys.argv[1:]
    seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else 20.0
    rt60s = [float(x) for x in args[args.index("--rt60") + 1].split(",")] if "--rt60" in args else [0.0, 0.3]
    cache = args[args.index("--cache") + 1] if "--cache" in args else None
    siren_db = float(args[args.index("--siren-db") + 1]) if "--siren-db" in args else 10.0
    azimuths = tuple(float(x) for x in args[args.index("--azimuths") + 1].split(",")) if "--azimuths" in args else (-40.0, 30.0)
    if cache:
        os.makedirs(cache, exist_ok=True)
    print(f"speech at {azimuths[0]:+.0f} deg + two-tone siren at {azimuths[1]:+.0f} deg ({siren_db:+.0f} dB), {seconds:.0f} s, spaced pair {SPACING} m, {FS} Hz")
    for rt60 in rt60s:
        evaluate(rt60, seconds, siren_db, cache, azimuths)


if __name__ == "__main__":
    main()
