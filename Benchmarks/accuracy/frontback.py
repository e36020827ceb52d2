#!/usr/bin/env python3
"""Front/back in simulated rooms: a listener turning its head among still sources.

An evaluation that prints figures, not a test. Needs pyroomacoustics, espeak-ng and the release
build (see evaluate.py). The 15 cm pair turns in a 6 x 5 x 3 m shoebox room (inverse Sabine
for the RT60): its yaw swings +-30 degrees with a 4 s period from 1 s on, rendered
piecewise-static in 0.1 s blocks with cross-fades, the microphones themselves rotating in the
room (so reflections stay put in the world). The source, speech 1.5 m away, is still in the
world. An IMU log of the yaw goes with it; `soundcompass analyze --imu` is scored on
  * when front/back is first resolved, after the turning began;
  * the share of frames after that with the right hemisphere (frames within 3 degrees of
    +-90 count either way);
  * the median error of the full-circle azimuth over active frames after that.

Usage: Benchmarks/accuracy/frontback.py [RT60 ...]   (default 0.3 0.6)
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pyroomacoustics as pra
from scipy.io import wavfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from evaluate import BINARY, CENTRE, DISTANCE, FS, ROOM, SPACING, add_noise, speech  # noqa: E402

BEARINGS = [20, -45, 70, -110, 135, -160]
DURATION = 8.0
STEP = 0.1


def yaw(t):
    return 0.0 if t <= 1 else 30 * np.sin(2 * np.pi * (t - 1) / 4)


def render(dry, bearing, rt60):
    absorption, max_order = pra.inverse_sabine(rt60, ROOM)
    n = len(dry)
    out = np.zeros((2, n + FS * 2))
    hop = int(STEP * FS)
    fade = np.hanning(2 * hop)
    theta = np.radians(bearing)
    source = CENTRE + DISTANCE * np.array([np.sin(theta), np.cos(theta), 0.0])
    for start in range(0, n, hop):
        seg = dry[start:start + 2 * hop] * fade[: min(2 * hop, n - start)]
        psi = np.radians(yaw((start + hop) / FS))
        # The pair's axis points to the listener's right: (cos psi, -sin psi) with yaw clockwise.
        axis = np.array([np.cos(psi), -np.sin(psi), 0.0]) * SPACING / 2
        mics = np.stack([CENTRE - axis, CENTRE + axis], axis=1)
        r = pra.ShoeBox(ROOM, fs=FS, materials=pra.Material(absorption), max_order=max_order)
        r.add_microphone_array(pra.MicrophoneArray(mics, FS))
        r.add_source(source, signal=seg)
        r.simulate()
        sig = r.mic_array.signals
        out[:, start:start + sig.shape[1]] += sig[:, : out.shape[1] - start]
    return out[:, :n]


def score(records, bearing):
    first = next((i for i, r in enumerate(records) if r["hemisphere"] != "unknown"), None)
    if first is None:
        return None, 0.0, float("nan")
    right, errors = 0, []
    for r in records[first:]:
        truth = (bearing - yaw(r["time"]) + 180) % 360 - 180
        if abs(abs(truth) - 90) <= 3 or (r["hemisphere"] == "front") == (abs(truth) < 90) and r["hemisphere"] != "unknown":
            right += 1
        if r["active"]:
            errors.append(abs((r["azimuth"] - truth + 180) % 360 - 180))
    return records[first]["time"] - 1, right / (len(records) - first), float(np.median(errors))


def main():
    rt60s = [float(x) for x in sys.argv[1:]] or [0.3, 0.6]
    dry = speech(DURATION)
    print("| RT60 s | bearing | resolved after | right hemisphere | median error |")
    print("| --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        imu = os.path.join(tmp, "imu.csv")
        with open(imu, "w") as f:
            f.write("time,yaw\n")
            for k in range(int(DURATION * 100) + 1):
                f.write(f"{k / 100:.2f},{yaw(k / 100):.4f}\n")
        for rt60 in rt60s:
            for bearing in BEARINGS:
                wet = render(dry, bearing, rt60)
                wet = add_noise(wet, np.abs(dry) > 0, 20, 7)
                path = os.path.join(tmp, "x.wav")
                wavfile.write(path, FS, (wet.T / max(1.0, np.abs(wet).max() * 1.01)).astype(np.float32))
                out = subprocess.run([BINARY, "analyze", path, "--imu", imu, "--format", "jsonl", "-q"],
                                     check=True, capture_output=True, text=True).stdout
                records = [json.loads(line) for line in out.splitlines()]
                delay, right, error = score(records, bearing)
                delay_text = "never" if delay is None else f"{delay:.2f} s"
                print(f"| {rt60:.1f} | {bearing:+d}° | {delay_text} | {100 * right:.0f} % | {error:.1f}° |", flush=True)


if __name__ == "__main__":
    main()
