#!/usr/bin/env python3
"""Real heads (issue 31): the binaural model on four measured heads, with the head's own SOFA
file (`--hrtf`), with the default delay law fitted on the other heads (leave one head out), and
with the sphere (the law before; or any other build with --binary).

An evaluation that prints figures, not a test. Needs espeak-ng, h5py, the release build and the
heads of heads_data.py (installed by their packages' own clients, checked by SHA-256).

Scenes, as hrir.py's: espeak-ng speech and seeded white noise, 4 s each at the head's own rate,
convolved with its horizontal-plane HRIRs, plus uncorrelated sensor noise at 30 dB SNR. Every
measured azimuth from -90 to +90 degrees is scored (every 5 degrees for KEMAR and the SONICOM
listeners; the KU 100's Lebedev grid has its own horizontal azimuths); with --rear the rear ones
too, against their front-folded mirror. Scored by issue 31's rule (scoring.py): on the frames
where the dry signal, delayed by the HRIR's direct path (its onset), is within 30 dB of its
loudest frame, with each record's `azimuth` whatever the detector marks. Score per azimuth: the
median absolute error over those frames; per head: the median of all those frames' errors and
the worst azimuth's median. The "active" column is the detector's recall on those frames.

Modes (--mode, default all three):
  sofa    `analyze --hrtf HEAD.sofa`: the head's own tables
  law     `analyze --profile P` with P holding the law fitted without this head
          (headlaw.json's fold; `head_law` in the profile)
  calibrated  the left-out law, then `calibrate` on a sweep through the head (white noise of
          its own seed, 1 s at each measured azimuth nearest every 10 degrees from -90 to +90,
          30 dB sensor noise), as a user calibrates a head: the per-head scale (head_radius_m)
          and the channel offsets; the scenes read with the profile it writes
  sphere  the sphere's law (`head_law` [1, 1, 0, 3]), the binaural model before issue 31
  default `analyze --array binaural` as it is (the law fitted on all heads; or --binary's own)

Usage: Benchmarks/accuracy/heads.py [--head NAME|all] [--mode sofa,law,sphere,default]
                                     [--binary PATH] [--rear] [--markdown] [--per-azimuth]
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile
from scipy.signal import fftconvolve

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrir  # noqa: E402  (speech, white noise)
import scoring  # noqa: E402  (issue 31's scoring rule)
from heads_data import HEADS, horizontal, sofa_path  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")
CACHE = os.environ.get("SOUNDCOMPASS_EVALCACHE", "/tmp/soundcompass-heads-cache")
SNR = 30.0


def argument(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


def render(head, kind, azimuth, ir, dry, rate):
    key = f"{head}-{kind}-{azimuth:+07.2f}-snr{SNR:g}-{hrir.SECONDS:g}s.wav"
    seed = 100000 + int(round(azimuth * 100)) + (0 if kind == "speech" else 50000)
    return hrir.render_cached(os.path.join(CACHE, key), dry, ir, rate, SNR, seed)


def law_profile(coefficients, rate, directory):
    path = os.path.join(directory, "law-" + "-".join(f"{c:.4f}" for c in coefficients) + ".json")
    with open(path, "w") as f:
        json.dump({"format": "soundcompass-profile", "version": 1, "array": "binaural", "spacing_m": 0.175,
                   "head_radius_m": 0.0875, "delay_offset_us": 0, "gain_offset_db": 0, "ild_gain": 10,
                   "head_law": list(coefficients), "sample_rate": rate, "speed_of_sound_m_s": 343,
                   "fitted": []}, f)
    return path


def calibrated_profile(binary, head, hrirs, rate, law, directory):
    """Renders the calibration sweep, runs `calibrate` from the law's profile; returns the path
    of the profile it writes."""
    front = sorted(a for a in hrirs if abs(a) <= 90)
    steps = sorted({min(front, key=lambda a: abs(a - target)) for target in range(-90, 91, 10)})
    dry = np.random.default_rng(11).standard_normal(rate) * 0.05
    wet = np.concatenate([np.stack([fftconvolve(dry, hrirs[a][:, ch])[: len(dry)] for ch in (0, 1)]) for a in steps], axis=1)
    wet += np.random.default_rng(12).standard_normal(wet.shape) * np.sqrt(np.mean(wet ** 2) / 10 ** (SNR / 10))
    sweep = os.path.join(directory, f"{head}-sweep.wav")
    wavfile.write(sweep, rate, (wet.T / max(1.0, np.abs(wet).max() * 1.01)).astype(np.float32))
    truth = os.path.join(directory, f"{head}-sweep.truth.csv")
    with open(truth, "w") as f:
        f.write("time,azimuth\n")
        for i, a in enumerate(steps):
            for t in np.arange(i + 0.1, i + 0.9, 0.01):
                f.write(f"{t:.3f},{a}\n")
    profile = os.path.join(directory, f"{head}-calibrated.json")
    report = subprocess.run([binary, "calibrate", sweep, "--profile", law, "--truth", truth, "-o", profile],
                            capture_output=True, text=True)
    print(f"{head}: calibrate: " + report.stderr.strip().replace("\n", " | "), file=sys.stderr)
    report.check_returncode()
    return profile


def folded(azimuth):
    return azimuth if abs(azimuth) <= 90 else float(np.sign(azimuth) * (180 - abs(azimuth)))


def main():
    binary = argument("--binary", BINARY)
    head_arg = argument("--head", "all")
    heads = list(HEADS) if head_arg == "all" else head_arg.split(",")
    modes = argument("--mode", "sofa,law,sphere").split(",")
    kinds = ["speech", "noise"]
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "headlaw.json")) as f:
        folds = json.load(f)["folds"]
    tmp = tempfile.mkdtemp(prefix="heads-")
    summary = []
    for head in heads:
        rate, hrirs = horizontal(head)
        hrir.FS = rate
        dry = {"speech": hrir.speech(), "noise": hrir.white(7)}
        azimuths = sorted(a for a in hrirs if abs(a) <= 90 or "--rear" in sys.argv)
        law = law_profile(folds[head], rate, tmp)
        options = {
            "sofa": ["--hrtf", sofa_path(head)],
            "law": ["--profile", law],
            "calibrated": ["--profile", calibrated_profile(binary, head, hrirs, rate, law, tmp)] if "calibrated" in modes else [],
            "sphere": ["--profile", law_profile([1.0, 1.0, 0.0, 3.0], rate, tmp)],
            "default": ["--array", "binaural"],
        }
        table = {}
        for mode in modes:
            for kind in kinds:
                for a in azimuths:
                    path = render(head, kind, a, hrirs[a], dry[kind], rate)
                    table[(mode, kind, a)] = scoring.scored(binary, path, options[mode], dry[kind], rate,
                                                            scoring.onset_delay(hrirs[a], rate), folded(a))
        if "--per-azimuth" in sys.argv:
            print(f"\n{head} ({rate} Hz): median error per azimuth, " + ", ".join(f"{m} speech / noise" for m in modes))
            print("| azimuth | " + " | ".join(f"{m}: speech / noise" for m in modes) + " |")
            print("|---|" + "---|" * len(modes))
            for a in azimuths:
                cells = []
                for mode in modes:
                    cells.append(" / ".join(
                        f"{np.median(table[(mode, k, a)][0]):.1f}°" if table[(mode, k, a)][0] else "–" for k in kinds))
                print(f"| {a:+g}° | " + " | ".join(cells) + " |")
        for mode in modes:
            for kind in kinds:
                front = [a for a in azimuths if abs(a) <= 90]
                pooled = np.concatenate([table[(mode, kind, a)][0] for a in front if table[(mode, kind, a)][0]] or [[np.nan]])
                medians = [float(np.median(table[(mode, kind, a)][0])) if table[(mode, kind, a)][0] else float("inf") for a in front]
                worst = int(np.argmax(medians))
                active = np.mean([table[(mode, kind, a)][2] / max(1, table[(mode, kind, a)][1]) for a in front])
                summary.append((head, mode, kind, float(np.median(pooled)), medians[worst], front[worst],
                                sum(m <= 3 for m in medians), sum(m <= 6 for m in medians), len(front), active))
    print("\n| head | mode | sound | median | worst azimuth | azimuths within 3° / 6° | active |")
    print("|---|---|---|---|---|---|---|")
    for head, mode, kind, median, worst, at, n3, n6, n, active in summary:
        print(f"| {head} | {mode} | {kind} | {median:.2f}° | {worst:.1f}° ({at:+g}°) | {n3}/{n} / {n6}/{n} | {100 * active:.0f} % |")


if __name__ == "__main__":
    main()
