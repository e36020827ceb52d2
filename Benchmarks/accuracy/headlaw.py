#!/usr/bin/env python3
"""Fits the binaural model's default delay law to measured heads, leaving each head out in turn.

The law (HeadDelayLaw in the engine): the interaural delay of a source at lateral angle theta,
in units of r/c (r = 8.75 cm, c = 343 m/s), is

    path(theta, L) = (1 - L) * (a_high * theta + b_high * sin theta) + L * (a_low * theta + b_low * sin theta)

with L the measurement's low-frequency share (the engine's own, per frame and band). The data are
the engine's own: `soundcompass head FILE.sofa --rate R` renders white and low-passed noise
through every horizontal-plane direction of a head and reports, for the broadband estimate and
each band, the median delay and low-frequency share (see Docs/Accuracy.md). Every (head,
azimuth in -90..90, estimate, noise) gives one point (theta, L, delay); the fit is linear least
squares in the four coefficients, the broadband estimate weighted 4 (it sets the tracked
azimuth), then refitted without points more than 4 robust standard deviations off (the highest
band's aliased delays at the sides).

Folds: for every head, the law fitted on the other heads ("left out"), and the law fitted on
all heads (what the engine ships). Writes Benchmarks/accuracy/headlaw.json (all folds) and,
with --write, Sources/SoundCompassEngine/Array/HeadDelayLawFit.swift.

Usage: Benchmarks/accuracy/headlaw.py [--binary PATH] [--write]
"""
import csv
import io
import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from heads_data import HEADS, horizontal, sofa_path  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")
R0, C = 0.0875, 343.0


def points(binary, head):
    rate, _ = horizontal(head)
    out = subprocess.run([binary, "head", sofa_path(head), "--rate", str(rate)],
                         check=True, capture_output=True, text=True).stdout
    rows = []
    for row in csv.DictReader(io.StringIO(out)):
        theta = np.radians(float(row["azimuth"]))
        weight = 4.0 if row["estimate"] == "broadband" else 1.0
        for delay, share in ((row["delay_us"], row["share"]), (row["low_delay_us"], row["low_share"])):
            path = -float(delay) * 1e-6 * C / R0
            rows.append((theta, float(share), path, weight, row["estimate"]))
    return rows


def design(rows):
    theta = np.array([r[0] for r in rows]); share = np.array([r[1] for r in rows])
    return np.stack([(1 - share) * theta, (1 - share) * np.sin(theta), share * theta, share * np.sin(theta)], axis=1)


def fit(rows):
    X = design(rows)
    y = np.array([r[2] for r in rows]); w = np.sqrt(np.array([r[3] for r in rows]))
    keep = np.ones(len(rows), bool)
    free = [0, 1, 2, 3]
    for _ in range(3):
        coef = np.zeros(4)
        solution, *_ = np.linalg.lstsq(X[keep][:, free] * w[keep, None], y[keep] * w[keep], rcond=None)
        coef[free] = solution
        # The law must rise on [0, 90 deg] (slope a + b cos theta, a at the side): a slope
        # coefficient a that comes out negative is held at 0 and the others refitted.
        negative = [i for i in (0, 2) if i in free and coef[i] < 0]
        if negative:
            free = [i for i in free if i not in negative]
            continue
        residual = y - X @ coef
        scale = 1.4826 * np.median(np.abs(residual[keep]))
        keep = np.abs(residual) <= 4 * scale
    a_h, b_h, a_l, b_l = coef
    assert a_h >= 0 and a_l >= 0 and a_h + b_h > 0 and a_l + b_l > 0, coef
    return [float(v) for v in coef], int((~keep).sum())


def rms_error_us(coef, rows):
    X = design(rows); y = np.array([r[2] for r in rows])
    broadband = np.array([r[4] == "broadband" for r in rows])
    e = (X @ np.array(coef) - y) * R0 / C * 1e6
    return float(np.sqrt(np.mean(e[broadband] ** 2))), float(np.sqrt(np.mean(e ** 2)))


def main():
    binary = sys.argv[sys.argv.index("--binary") + 1] if "--binary" in sys.argv else BINARY
    data = {h: points(binary, h) for h in HEADS}
    result = {"units": "r/c with r = 0.0875 m, c = 343 m/s; [a_high, b_high, a_low, b_low]", "folds": {}}
    print("| fitted on | a_high | b_high | a_low | b_low | dropped | left-out head | its RMS delay error, broadband / all (us) |")
    print("|---|---|---|---|---|---|---|---|")
    for left_out in list(HEADS) + [None]:
        train = [r for h in HEADS if h != left_out for r in data[h]]
        coef, dropped = fit(train)
        name = "all" if left_out is None else f"all but {left_out}"
        checks = [left_out] if left_out else list(HEADS)
        for h in checks:
            bb, every = rms_error_us(coef, data[h])
            print(f"| {name} | {coef[0]:.4f} | {coef[1]:.4f} | {coef[2]:.4f} | {coef[3]:.4f} | {dropped} | {h} | {bb:.1f} / {every:.1f} |")
        result["folds"][left_out or "all"] = coef
    sphere = [1.0, 1.0, 0.0, 3.0]
    for h in HEADS:
        bb, every = rms_error_us(sphere, data[h])
        print(f"| (sphere) | 1 | 1 | 0 | 3 | - | {h} | {bb:.1f} / {every:.1f} |")
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "headlaw.json"), "w") as f:
        json.dump(result, f, indent=2)
        f.write("\n")
    if "--write" in sys.argv:
        a_h, b_h, a_l, b_l = result["folds"]["all"]
        with open(os.path.join(ROOT, "Sources", "SoundCompassEngine", "Array", "HeadDelayLawFit.swift"), "w") as f:
            f.write("// Written by Benchmarks/accuracy/headlaw.py --write: the default binaural delay law's\n"
                    "// coefficients (see HeadDelayLaw.measuredHeads), fitted on all four measured heads\n"
                    "// (units of r/c; the leave-one-head-out folds are in Benchmarks/accuracy/headlaw.json).\n"
                    "enum HeadDelayLawFit {\n"
                    f"    static let highLinear = {a_h:.4f}\n    static let highSine = {b_h:.4f}\n"
                    f"    static let lowLinear = {a_l:.4f}\n    static let lowSine = {b_l:.4f}\n}}\n")


if __name__ == "__main__":
    main()
