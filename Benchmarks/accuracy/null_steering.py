#!/usr/bin/env python3
"""Would steering the pair's null at the other source name a sound beside a talker better than
YAMNet on one microphone? An evaluation that prints figures, not a test (issue 44: labels beside a
talker, and a siren alerted within 1.5 s of its onset beside one).

labels_real.py's beside-a-talker scenes (the same recordings, room, seeds and cache), each
classified three ways by the NumPy YAMNet (yamnet_numpy.py), patches of 0.96 s every 0.48 s from
the onset (1 s):
  mix        the left microphone, unseparated: labels_real.py's reference;
  null       the pair steered to null the other source, |L - R e^{i w tau_o}| / sqrt(2), with the
             TRUE bearings (so the tracker is out of it): a linear filter that cancels the other
             source's direct sound in every bin, and leaves its reverberation;
  null+eq    the same, divided by the filter's comb toward the source itself,
             sqrt(max(0.49, 1 - cos(w (tau_o - tau_s)))) (the floor: at most +3 dB of boost).
Each is scored for the source (its class's acceptable names, labels_real_data.ACCEPTABLE) and
for the talker (speech names, with the null steered at the source instead) by labels_real.py's
reference rule: labelled when an acceptable name is in the top three of at least half of the
patches. For the siren and alarm files it also prints the end of the first patch that would
start an alert (SoundClassifier's rule on one patch: an alert class first of all with at least
0.3, or any with at least 0.7) and whether that is within 1.5 s of the onset.

Usage: Benchmarks/accuracy/null_steering.py [--seeds 44,45] [--cache DIR] [--jobs N]
Needs what labels_real.py needs (pyroomacoustics, scipy, ffmpeg, the model, the set's Debian
packages); renders scenes labels_real.py has not rendered into DIR. Time: about 65 s for five
seeds on two cores once the scenes are rendered (labels_real.py --cache DIR renders them).
"""
import collections
import multiprocessing
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import labels_real as L  # noqa: E402  (sets one BLAS thread per process)
import labels_real_data as D  # noqa: E402

import numpy as np  # noqa: E402
from scipy.io import wavfile  # noqa: E402
from scipy.signal import resample_poly  # noqa: E402

COMB_FLOOR = 0.49
ALERTS = {"siren": sorted(L.C.SIRENS),
          "alarm": ["Smoke detector, smoke alarm", "Fire alarm", "Car alarm", "Alarm clock", "Buzzer", "Beep, bleep"]}
WAYS = ("mix", "null", "null+eq")


def spectra(pair):
    """The left and right channels' 16 kHz spectra (YAMNet's frames: 25 ms Hann, 10 ms hop)."""
    import yamnet_numpy as Y
    return [Y.stft(resample_poly(pair[:, c].astype(np.float64), 1, L.FS // 16000)) for c in (0, 1)]


def magnitudes(left, right, target, other):
    """Each way's magnitudes for the source at `target` beside the one at `other` (deg)."""
    omega, delay = L.C.OMEGA, L.C.delay
    nulled = np.abs(left - right * np.exp(1j * omega * delay(other))) / np.sqrt(2)
    comb = np.maximum(COMB_FLOOR, 1 - np.cos(omega * (delay(other) - delay(target))))
    return {"mix": np.abs(left), "null": nulled, "null+eq": nulled / np.sqrt(comb)}


def scores(mag):
    """YAMNet's scores (sigmoid) for each patch of `mag`."""
    import yamnet_numpy as Y
    patches = Y.patches_of(Y.logmel_from_mag(mag))
    if not len(patches):
        return np.zeros((0, len(Y.NAMES)))
    return 1 / (1 + np.exp(-np.clip(Y.logits(patches), -50, 50)))


def labelled(probabilities, acceptable):
    import yamnet_numpy as Y
    tops = [{Y.NAMES[i] for i in np.argsort(-p)[:3]} for p in probabilities]
    return bool(tops) and sum(bool(t & acceptable) for t in tops) >= 0.5 * len(tops)


def first_alert(probabilities, names):
    """Seconds from the onset to the end of the first patch that would start an alert, or None."""
    import yamnet_numpy as Y
    classes = [Y.NAMES.index(n) for n in names]
    for k, p in enumerate(probabilities):
        s = p[classes].max()
        if s >= 0.7 or (int(np.argmax(p)) in classes and s >= 0.3):
            return 0.96 + 0.48 * k
    return None


def evaluate(task):
    row, seed, cache = task
    cls, path = row[0], row[2]
    az, talker_az, paths = L.scene_files(row, seed, cache)
    _, pair = wavfile.read(paths[1])
    left, right = spectra(pair[int(L.ONSET * L.FS):])
    acceptable, speech = set(D.ACCEPTABLE[cls]), set(D.ACCEPTABLE["speech"])
    result = {"class": cls, "file": os.path.basename(path), "seed": seed, "azimuth": az, "talker": talker_az}
    for way, mag in magnitudes(left, right, az, talker_az).items():
        p = scores(mag)
        result[("source", way)] = labelled(p, acceptable)
        if cls in ALERTS:
            result[("alert", way)] = first_alert(p, ALERTS[cls])
    for way, mag in magnitudes(left, right, talker_az, az).items():
        result[("talker", way)] = labelled(scores(mag), speech)
    return result


def main():
    args = sys.argv[1:]
    seeds = [int(s) for s in args[args.index("--seeds") + 1].split(",")] if "--seeds" in args else [44]
    cache = args[args.index("--cache") + 1] if "--cache" in args else os.path.expanduser("~/.cache/soundcompass-labels")
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else (os.cpu_count() or 2)
    os.makedirs(cache, exist_ok=True)
    rows = L.available()
    tasks = [(row, seed, cache) for seed in seeds for row in rows]
    with multiprocessing.Pool(jobs) as pool:
        results = pool.map(evaluate, tasks, chunksize=1)
    print(f"{len(results)} beside-a-talker scenes (seeds {','.join(map(str, seeds))}); true bearings; "
          f"labelled as labels_real.py's reference")
    print(f"{'class':<11}{'scenes':>7}" + "".join(f"{w:>10}" for w in WAYS) + "   talker: " + " ".join(f"{w:>8}" for w in WAYS))
    per = collections.defaultdict(collections.Counter)
    for r in results:
        per[r["class"]]["n"] += 1
        for key in ("source", "talker"):
            for w in WAYS:
                per[r["class"]][(key, w)] += r[(key, w)]
                per["all"][(key, w)] += r[(key, w)]
    per["all"]["n"] = len(results)
    for cls in D.CLASSES + ["all"]:
        c = per[cls]
        if not c["n"]:
            continue
        print(f"{cls:<11}{c['n']:>7}" + "".join(f"{c[('source', w)]:>10}" for w in WAYS)
              + "           " + " ".join(f"{c[('talker', w)]:>8}" for w in WAYS))
    print("\nalerts beside a talker (end of the first patch that starts one, s after the onset; target <= 1.5):")
    within = collections.Counter()
    for r in results:
        if r["class"] not in ALERTS:
            continue
        cells = []
        for w in WAYS:
            t = r[("alert", w)]
            within[w] += t is not None and t <= L.ALERT_LATENCY
            cells.append(f"{w} {'-' if t is None else f'{t:.2f}'}")
        print(f"  {r['class']:<6} {r['file']:<28} seed {r['seed']} at {r['azimuth']:+.0f} (talker {r['talker']:+.0f}): "
              + ", ".join(cells))
    n = sum(r["class"] in ALERTS for r in results)
    print("  within 1.5 s: " + ", ".join(f"{w} {within[w]}/{n}" for w in WAYS))


if __name__ == "__main__":
    main()
