#!/usr/bin/env python3
"""What a source's `confidence` means, measured (issue 46, item 3): an evaluation that prints
figures, not a test.

Every active entry of `sources` in every record is scored: is it within 10 degrees of one of the
scene's true sources? The share of such entries, per band of `confidence`, is the calibration
curve: a source reported at confidence c should be real in about c of the frames.

Two sets of scenes, the renders of `evaluate.py` (the same room, pair, talkers, noise and
sensor noise):
  * sweep: the `--steady` room sweep (a talker beside a pink noise, 44 layouts, RT60 0.3 and
    0.6 s, noise 0 and -5 dB re the talker): 176 runs, the set the engine's table is fitted on;
  * multi: the `--multi` scenes (two and three talkers, a talker and a pink noise, one talker,
    anechoic and at RT60 0.3 and 0.6 s): 36 runs, held out, where the curve is checked.

Usage: Benchmarks/accuracy/confidence.py [--cache DIR] [--fit] [--quick]
  --fit    also fit SourceConfidenceCalibration's logistic model (maximum likelihood on the
           sweep: the tracker's confidence, the log of the id's age, the level re the frame's)
           and print its weights as Swift: run it on a build whose
           `SourceConfidenceCalibration.isIdentity` is set (records carrying the tracker's own
           confidence), then paste the weights
  --quick  every fifth sweep layout
The binary is .build/release/soundcompass, or $SOUNDCOMPASS_BINARY when set.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
import evaluate as ev  # noqa: E402

BANDS = [0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0001]
OLD_SECONDS = 10.0  # SourceConfidenceCalibration.oldSeconds


def noisy_mix(wets, drys, seed):
    """The mixture plus sensor noise 20 dB below it where any source is active (evaluate.py's rule)."""
    mix = np.sum(wets, axis=0)
    masks = [ev.sample_activity(d, ev.MULTI_FLOOR) for d in drys]
    power = np.mean(mix[:, np.any(masks, axis=0)] ** 2)
    rng = np.random.default_rng(seed)
    return mix + rng.standard_normal(mix.shape) * np.sqrt(power / 10 ** (20 / 10))


def entries(signals, truths):
    """(confidence, real, age s, level re the frame dB) for every active listed source of every
    record; the age runs from the first record that lists the source's id."""
    records, _ = ev.multi_soundcompass(signals, None)
    out, first = [], {}
    for r in records:
        for s in r.get("sources", []):
            first.setdefault(s["id"], r["time"])
            if s["active"]:
                real = min(abs(s["azimuth"] - a) for a in truths) <= ev.HIT_DEGREES
                out.append((s["confidence"], real, r["time"] - first[s["id"]], s["level_dbfs"] - r["level_dbfs"]))
    return out


def sweep(quick):
    seconds = ev.MULTI_SECONDS
    talkers = [ev.talker(0, seconds), ev.talker(1, seconds)]
    noise = ev.pink(seconds, 31)
    layouts = ev.steady_layouts()[:: 5 if quick else 1]
    data = []
    for rt60, level in [(0.3, 0), (0.3, -5), (0.6, 0), (0.6, -5)]:
        for index, (n_az, t_az) in enumerate(layouts):
            which = index % 2
            wet_t = ev.render_static(f"talker{which}", talkers[which], t_az, rt60)
            wet_n = ev.render_static("pink", noise, n_az, rt60) * 10 ** (level / 20)
            signals = noisy_mix([wet_t, wet_n], [talkers[which], noise * 10 ** (level / 20)], 700 + index)
            data += entries(signals, [float(t_az), float(n_az)])
    return data


def multi():
    data, dry = [], {}
    for _, rt60, runs in ev.multi_scenes():
        for run, layout in enumerate(runs):
            wets, drys = [], []
            for name, azimuth in layout:
                if name not in dry:
                    dry[name] = ev.dry_source(name, ev.MULTI_SECONDS)
                drys.append(dry[name])
                wets.append(ev.render_static(name, dry[name], azimuth, rt60))
            data += entries(noisy_mix(wets, drys, 500 + run), [float(a) for _, a in layout])
    return data


def table(name, data):
    c = np.array([d[0] for d in data])
    real = np.array([d[1] for d in data], dtype=float)
    print(f"{name}: {len(data)} active source entries, {100 * real.mean():.1f} % real; "
          f"mean confidence {c.mean():.3f}")
    print("| confidence | entries | real (within 10° of a true source) |")
    print("|---|---|---|")
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        inside = (c >= lo) & (c < hi)
        if inside.sum() == 0:
            continue
        print(f"| {lo:.1f}–{min(hi, 1.0):.1f} | {inside.sum()} | {100 * real[inside].mean():.1f} % |")
    # The expected calibration error: |share real − mean confidence| per band, weighted.
    error = 0.0
    for lo, hi in zip(BANDS[:-1], BANDS[1:]):
        inside = (c >= lo) & (c < hi)
        if inside.sum():
            error += inside.sum() / len(c) * abs(real[inside].mean() - c[inside].mean())
    print(f"expected calibration error: {error:.3f}")
    print()


def features(data):
    """SourceConfidenceCalibration's inputs: 1, the confidence, ln(1 + min(age, 10 s)), the level
    re the frame clamped to -40...10 dB, per 10 dB."""
    d = np.array([(e[0], e[2], e[3]) for e in data], dtype=float)
    return np.column_stack([np.ones(len(d)), d[:, 0], np.log1p(np.minimum(d[:, 1], OLD_SECONDS)),
                            np.clip(d[:, 2], -40, 10) / 10])


def fit(data):
    """Maximum likelihood (Newton's method) of the logistic model of `real` on features(data)."""
    x = features(data)
    y = np.array([e[1] for e in data], dtype=float)
    w = np.zeros(x.shape[1])
    for _ in range(50):
        p = 1 / (1 + np.exp(-x @ w))
        hessian = (x * (p * (1 - p))[:, None]).T @ x + 1e-9 * np.eye(len(w))
        w += np.linalg.solve(hessian, x.T @ (y - p))
    print("logistic fit on the sweep, as SourceConfidenceCalibration's weights:")
    print(f"    static let intercept = {w[0]:.3f}, confidenceWeight = {w[1]:.3f}, ageWeight = {w[2]:.3f}, "
          f"levelWeight = {w[3]:.3f}")


def main():
    if "--cache" in sys.argv:
        ev.CACHE = sys.argv[sys.argv.index("--cache") + 1]
        os.makedirs(ev.CACHE, exist_ok=True)
    if not os.path.exists(ev.BINARY):
        sys.exit(f"confidence.py: no binary at {ev.BINARY} (swift build -c release --product soundcompass)")
    fitted = sweep("--quick" in sys.argv)
    table("sweep (the fit's set)", fitted)
    table("multi (held out)", multi())
    if "--fit" in sys.argv:
        fit(fitted)


if __name__ == "__main__":
    main()
