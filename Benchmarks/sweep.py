#!/usr/bin/env python3
"""Accuracy sweep (an evaluation that prints figures, not a test).

For each setup (sample rate, spacing, SNR) it synthesises white noise at -80...80 degrees in 5-degree
steps with exact fractional delays (`soundcompass synth`), analyses each file and prints the
per-case median absolute error, then the worst median for |az| <= 60 and for |az| <= 80.

Usage: Benchmarks/sweep.py [--duration S]
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# $SOUNDCOMPASS_BINARY runs another build (for example the one before a change) as it is.
BINARY = os.environ.get("SOUNDCOMPASS_BINARY") or os.path.join(ROOT, ".build", "release", "soundcompass")
SETUPS = [(48000, 0.15, None), (44100, 0.15, None), (48000, 0.10, None), (44100, 0.10, None),
          (48000, 0.15, 0), (44100, 0.10, 0)]


def median(values):
    s = sorted(values)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    duration = "1"
    if "--duration" in sys.argv:
        duration = sys.argv[sys.argv.index("--duration") + 1]
    if not os.environ.get("SOUNDCOMPASS_BINARY"):
        subprocess.run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=ROOT, check=True,
                       stdout=sys.stderr)
    azimuths = list(range(-80, 81, 5))
    with tempfile.TemporaryDirectory() as tmp:
        print("setup                       worst median |az|<=60   worst median |az|<=80   median confidence")
        for rate, spacing, snr in SETUPS:
            errors = {}
            confidences = []
            for az in azimuths:
                path = os.path.join(tmp, "x.wav")
                command = [BINARY, "synth", path, "--source", f"white@{az}", "--duration", duration, "--rate", str(rate),
                           "--spacing", str(spacing), "--truth", "none", "--seed", str(az + 1000)]
                if snr is not None:
                    command.append(f"--snr={snr}")
                subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
                out = subprocess.run([BINARY, "analyze", path, "--spacing", str(spacing), "--format", "jsonl", "-q"],
                                     check=True, capture_output=True, text=True).stdout
                records = [json.loads(line) for line in out.splitlines()]
                errors[az] = median([abs(r["azimuth"] - az) for r in records])
                confidences.append(median([r["confidence"] for r in records]))
            inner = max(e for a, e in errors.items() if abs(a) <= 60)
            outer = max(errors.values())
            label = f"{rate} Hz, d = {spacing:.2f} m" + (f", SNR {snr} dB" if snr is not None else "")
            print(f"{label:<28}{inner:>10.3f} deg {outer:>22.3f} deg {median(confidences):>16.2f}")


if __name__ == "__main__":
    main()
