#!/usr/bin/env python3
"""Accuracy on a real head: SoundCompass's binaural model against measured HRIRs.

An evaluation that prints figures, not a test. It needs `apt-get install espeak-ng`, the
release build of soundcompass, and the measured heads, which ship inside PyPI wheels:

- `kemar` (the default): the MIT KEMAR dummy head (normal pinna, 44.1 kHz, 512 taps, sources
  at 1.4 m), inside slab's wheel (`pip install slab`);
- `sonicom-1`, `sonicom-2`: two human listeners of the SONICOM project (Imperial College
  London, in-ear microphones with blocked ear canals, 48 kHz, 256 taps, sources at 1.5 m,
  every 5 degrees in the horizontal plane), the example SOFA files inside the
  spatialaudiometrics wheel (`pip install --no-deps spatialaudiometrics`), read with h5py
  (`pip install h5py`).

`--head NAME` picks one, `--head all` runs the three one after the other.

Scenes (at the head's sample rate): speech (espeak-ng, the sentences of evaluate.py) and white noise (seeded),
4 s each, convolved with KEMAR's HRIRs (normal pinna) at 0 degrees elevation for every 5
degrees, plus uncorrelated sensor noise at 30 dB SNR (seeded; like evaluate.py's quietest
condition, so that bins without signal are not perfectly coherent). slab's azimuth runs
counter-clockwise (90 = left); here 0 is ahead, negative left, positive right. Front azimuths
-90 ... 90 are scored against themselves; rear ones (|azimuth| > 90) against their front-folded
mirror `sign(a) * (180 - |a|)`, since two ears alone cannot tell front from back.

For every azimuth it prints the median absolute error of the tracked `azimuth` of
`soundcompass analyze --array binaural`, scored by issue 31's rule (scoring.py: on the frames
where the dry signal, delayed by the HRIR's onset, is within 30 dB of its loudest frame, whatever
the detector marks), and the share of those frames the detector marks active; then the median of
all those frames' errors and the worst azimuth's median, front and rear separately.

Renders are cached under $SOUNDCOMPASS_EVALCACHE (default /tmp/soundcompass-hrir-cache) by
their parameters, so re-runs only re-run soundcompass.

With --calibrate, the head is first calibrated the way a user calibrates their own head or
dummy head (Docs/Calibration.md): a stepped sweep of white noise (a seed of its own, not the
scored noise) through KEMAR's HRIRs from -60 to +60 degrees, 1 s at each 5 degrees, with a
truth CSV, goes through `soundcompass calibrate --array binaural`, and the scenes are then
analysed with the profile it writes (`--profile`) instead of the default head.

Usage: Benchmarks/accuracy/hrir.py [--head kemar|sonicom-1|sonicom-2|all] [--binary PATH]
                                   [--head-radius M | --calibrate] [--only speech|noise]
                                   [--markdown] [--snr DB]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import fftconvolve, resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scoring  # noqa: E402  (issue 31's scoring rule)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")
# The current head's sample rate (set by main() for each head).
FS = 44100
SECONDS = 4.0
SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Please turn left at the second crossing and wait for the green light.",
    "Where did you put the keys? I thought they were on the kitchen table.",
    "Sound travels at about three hundred and forty metres per second in air.",
]
CACHE = os.environ.get("SOUNDCOMPASS_EVALCACHE", "/tmp/soundcompass-hrir-cache")


def argument(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def speech():
    """espeak-ng speech at FS, SECONDS long, RMS 0.05."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.wav")
        subprocess.run(["espeak-ng", "-s", "150", "-w", path, " ".join(SENTENCES)], check=True)
        rate, data = wavfile.read(path)
    x = resample_poly(data.astype(np.float64) / 32768.0, FS, rate)
    x = np.tile(x, int(np.ceil(SECONDS * FS / len(x))))[: int(SECONDS * FS)]
    return x / np.sqrt(np.mean(x ** 2)) * 0.05


def white(seed):
    return np.random.default_rng(seed).standard_normal(int(SECONDS * FS)) * 0.05


def ours(ccw):
    """slab's and SOFA's azimuth (counter-clockwise from ahead, 90 = left) as ours."""
    a = (-float(ccw) + 180) % 360 - 180
    return 180 if round(a) == -180 else round(a)


def kemar_horizontal():
    """(sample rate, {our azimuth (deg, positive right): (taps, 2) HRIR [left, right]}) at 0 deg
    elevation."""
    import slab
    hrtf = slab.HRTF.kemar()
    polar = hrtf.sources.vertical_polar
    result = {}
    for i in range(len(polar)):
        if abs(polar[i, 1]) > 0.01:
            continue
        result[ours(polar[i, 0])] = np.asarray(hrtf.data[i].data, dtype=np.float64)
    return 44100, result


def sonicom_horizontal(number):
    """The same for the spatialaudiometrics wheel's example SOFA file `number` (1 or 2)."""
    import importlib.resources
    import h5py
    path = importlib.resources.files("spatialaudiometrics") / f"example_sofa_{number}.sofa"
    with h5py.File(str(path), "r") as sofa:
        rate = float(sofa["Data.SamplingRate"][0])
        ir = np.asarray(sofa["Data.IR"], dtype=np.float64)  # (measurements, receivers, taps)
        positions = np.asarray(sofa["SourcePosition"])       # azimuth, elevation (deg), distance
        assert not np.any(np.asarray(sofa["Data.Delay"])), "delays kept apart from the IRs"
    result = {}
    for i in range(len(positions)):
        if abs(positions[i, 1]) > 0.01:
            continue
        result[ours(positions[i, 0])] = ir[i].T
    return int(rate), result


HEADS = {
    "kemar": kemar_horizontal,
    "sonicom-1": lambda: sonicom_horizontal(1),
    "sonicom-2": lambda: sonicom_horizontal(2),
}


def render_cached(path, dry, response, rate, snr, seed):
    """`dry` heard through the two-channel impulse response `response` (samples x 2), white
    sensor noise at `snr` dB below its power (numpy seed `seed`), written to `path` as 32-bit
    float WAV at `rate` (scaled down only if it would clip); kept: an existing `path` is reused.
    Shared by hrir.py, heads.py and heads_room.py."""
    if os.path.exists(path):
        return path
    wet = np.stack([fftconvolve(dry, response[:, ch])[: len(dry)] for ch in (0, 1)])
    power = np.mean(wet ** 2)
    rng = np.random.default_rng(seed)
    wet += rng.standard_normal(wet.shape) * np.sqrt(power / 10 ** (snr / 10))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = path + ".tmp.wav"
    wavfile.write(tmp, rate, (wet.T / max(1.0, np.abs(wet).max() * 1.01)).astype(np.float32))
    os.replace(tmp, path)
    return path


def render(head, kind, azimuth, hrir, dry, snr):
    key = f"{head}-{kind}-{azimuth:+04d}-snr{snr:g}-{SECONDS:g}s.wav"
    return render_cached(os.path.join(CACHE, key), dry, hrir, FS, snr, 1000 + azimuth + (0 if kind == "speech" else 500))


SWEEP_AZIMUTHS = list(range(-60, 61, 5))
SWEEP_STEP = 1.0  # seconds at each azimuth


def calibrate(binary, head, hrirs, snr):
    """Renders the stepped sweep and its truth, runs `calibrate`; returns the profile's path."""
    dry = np.random.default_rng(11).standard_normal(int(SWEEP_STEP * FS)) * 0.05
    parts = [np.stack([fftconvolve(dry, hrirs[a][:, ch])[: len(dry)] for ch in (0, 1)]) for a in SWEEP_AZIMUTHS]
    wet = np.concatenate(parts, axis=1)
    power = np.mean(wet ** 2)
    wet += np.random.default_rng(12).standard_normal(wet.shape) * np.sqrt(power / 10 ** (snr / 10))
    os.makedirs(CACHE, exist_ok=True)
    path = os.path.join(CACHE, f"{head}-sweep-snr{snr:g}.wav")
    wavfile.write(path, FS, (wet.T / max(1.0, np.abs(wet).max() * 1.01)).astype(np.float32))
    truth = os.path.join(CACHE, f"{head}-sweep-snr{snr:g}.truth.csv")
    with open(truth, "w") as f:
        f.write("time,azimuth\n")
        for i, a in enumerate(SWEEP_AZIMUTHS):
            for t in np.arange(i * SWEEP_STEP, (i + 1) * SWEEP_STEP, 0.01):
                f.write(f"{t:.3f},{a}\n")
    profile = os.path.join(CACHE, f"{head}-sweep-snr{snr:g}.profile.json")
    report = subprocess.run([binary, "calibrate", path, "--array", "binaural", "--truth", truth, "-o", profile],
                            check=True, capture_output=True, text=True).stderr
    print(report.strip(), file=sys.stderr)
    return profile


def options(radius, profile=None):
    """The `analyze` options of the head under test."""
    command = ["--profile", profile] if profile is not None else ["--array", "binaural"]
    return command + (["--head-radius", str(radius)] if radius is not None else [])


def folded(azimuth):
    return azimuth if abs(azimuth) <= 90 else float(np.sign(azimuth) * (180 - abs(azimuth)))


def main():
    global FS
    binary = argument("--binary", BINARY)
    radius = argument("--head-radius", None)
    snr = float(argument("--snr", "30"))
    markdown = "--markdown" in sys.argv
    kinds = [argument("--only", None)] if "--only" in sys.argv else ["speech", "noise"]
    head = argument("--head", "kemar")
    heads = list(HEADS) if head == "all" else [head]
    if any(h not in HEADS for h in heads):
        sys.exit(f"hrir.py: --head is one of {', '.join(HEADS)} or all")
    if not os.path.exists(binary):
        subprocess.run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=ROOT, check=True)
    for h in heads:
        FS, hrirs = HEADS[h]()
        if len(heads) > 1:
            print(f"== {h} ({FS} Hz)")
        evaluate(binary, h, hrirs, radius, snr, markdown, kinds)
        if len(heads) > 1:
            print()


def evaluate(binary, head, hrirs, radius, snr, markdown, kinds):
    profile = calibrate(binary, head, hrirs, snr) if "--calibrate" in sys.argv else None
    dry = {"speech": speech(), "noise": white(7)}
    azimuths = sorted(hrirs, key=lambda a: (abs(a) > 90, a))
    table = {}
    for kind in kinds:
        for azimuth in azimuths:
            path = render(head, kind, azimuth, hrirs[azimuth], dry[kind], snr)
            errors, audible, marked, _ = scoring.scored(
                binary, path, options(radius, profile), dry[kind], FS,
                scoring.onset_delay(hrirs[azimuth], FS), folded(azimuth))
            table[(kind, azimuth)] = (errors, audible, marked)
    if markdown:
        print("| azimuth | scored as | " + " | ".join(f"{k} median error / active" for k in kinds) + " |")
        print("|---|---|" + "---|" * len(kinds))
    else:
        print("azimuth  scored  " + "  ".join(f"{k:>8} med  active" for k in kinds))
    for azimuth in azimuths:
        cells = []
        for kind in kinds:
            errors, audible, marked = table[(kind, azimuth)]
            median = float(np.median(errors)) if errors else float("nan")
            cells.append(f"{median:5.1f}° / {100 * marked / max(1, audible):3.0f}%")
        if markdown:
            print(f"| {azimuth:+d} | {folded(azimuth):+g} | " + " | ".join(cells) + " |")
        else:
            print(f"{azimuth:+7d}  {folded(azimuth):+6g}  " + "  ".join(f"{c:>16}" for c in cells))
    print()
    for side, keep in (("front -90..90", lambda a: abs(a) <= 90), ("rear (folded)", lambda a: abs(a) > 90)):
        for kind in kinds:
            chosen = [a for a in azimuths if keep(a)]
            pooled = np.concatenate([table[(kind, a)][0] for a in chosen if table[(kind, a)][0]] or [[np.nan]])
            medians = [float(np.median(table[(kind, a)][0])) if table[(kind, a)][0] else float("inf") for a in chosen]
            worst = int(np.argmax(medians))
            print(f"{side} {kind}: median {np.median(pooled):.1f}°, worst {medians[worst]:.1f}° at {chosen[worst]:+d}°"
                  f" ({sum(m <= 5 for m in medians)}/{len(chosen)} azimuths within 5°)")


if __name__ == "__main__":
    main()
