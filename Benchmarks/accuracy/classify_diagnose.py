#!/usr/bin/env python3
"""Why a source of classify.py's scene (speech at -40 deg, two-tone siren at +30 deg) is or is
not labelled: each source rendered alone in the same room (pyroomacoustics is linear, so the
mixture is their sum), classified with a NumPy YAMNet (yamnet_numpy.py) as
  - the mixture, unmasked;
  - each source alone (the best any mask could give), at its level and at +6 dB;
  - the nearest-phase mask with the TRUE bearings (so the tracker is out of it), bins of the
    other source zeroed (the old mask) or at -30 dB, with and without the level normalisation
    of SourceLabeler (loud frames at 45 dB);
  - the ideal binary mask (each bin to the source louder in it), the same ways;
and the share of each source's energy the phase mask keeps. The masked siren is written to
DIR/masked-siren-RT60.wav (mixture phase, left channel) to listen to.

Usage: Benchmarks/accuracy/classify_diagnose.py [--rt60 0,0.3] [--out DIR] [-v]
Needs pyroomacoustics, scipy, espeak-ng and the model (scripts/fetch-model). CPU: ~1 min per room.
"""
import os
import sys

import numpy as np
from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classify as C  # noqa: E402
import yamnet_numpy as Y  # noqa: E402

REJECTED = 0.03   # SourceMasks.rejectedBinGain
LEVEL_DB = 45.0   # SourceMasks.patchLevel, dB of frame power
MAX_GAIN = 31.62  # SourceMasks.maximumLevelGain


def patches(mag, normalise):
    out, s = [], 0
    while s + 96 <= len(mag):
        p = mag[s:s + 96]
        if normalise:
            level = np.percentile((p ** 2).sum(1), 90, method="lower")
            p = p * (min(MAX_GAIN, np.sqrt(10 ** (LEVEL_DB / 10) / level)) if level > 0 else 1)
        out.append(Y.logmel_from_mag(p))
        s += 48
    return np.array(out[3:])  # from 1.44 s, as classify.py counts from 1.5 s


def share(mag, classes, normalise, verbose=False):
    logits = Y.logits(patches(mag, normalise))
    hits = [any(n in classes for n, _ in Y.top(lg)) for lg in logits]
    if verbose:
        for i, lg in enumerate(logits):
            print("      ", i, [(n, round(s, 2)) for n, s in Y.top(lg)])
    return 100.0 * np.mean(hits)


def main():
    args = sys.argv[1:]
    rt60s = [float(x) for x in args[args.index("--rt60") + 1].split(",")] if "--rt60" in args else [0.0, 0.3]
    out = args[args.index("--out") + 1] if "--out" in args else "/tmp/soundcompass-classify-debug"
    verbose = "-v" in args
    os.makedirs(out, exist_ok=True)
    seconds, siren_db = 20.0, 10.0
    for rt60 in rt60s:
        cache = os.path.join(out, f"parts-{rt60}.npz")
        if os.path.exists(cache):
            d = np.load(cache)
            sp, si = d["sp"], d["si"]
        else:
            sp = C.render([(C.speech(seconds), -40.0)], rt60)
            si = C.render([(C.siren(seconds, 0.05 * 10 ** (siren_db / 20)), 30.0)], rt60)
            np.savez(cache, sp=sp, si=si)
        g = 0.9 / np.max(np.abs(sp + si))  # classify.py's scaling of the mixture
        sp, si = sp * g, si * g
        spec = {k: (Y.stft(resample_poly(v[0], 1, 3)), Y.stft(resample_poly(v[1], 1, 3)))
                for k, v in dict(sp=sp, si=si, mix=sp + si).items()}
        rms = {k: np.sqrt((np.abs(L) ** 2 + np.abs(R) ** 2) / 2) for k, (L, R) in spec.items()}
        L, R = spec["mix"]
        phase = np.angle(L * np.conj(R))
        near = np.cos(phase - C.OMEGA * C.delay(30)) > np.cos(phase - C.OMEGA * C.delay(-40))  # bins to the siren
        ideal = rms["si"] > rms["sp"]
        M = rms["mix"]
        sirens, speech = C.SIRENS, {"Speech"}
        print(f"--- RT60 {rt60} s (siren +{siren_db:.0f} dB): share of patches with the source's class in the top three, siren / speech")
        print(f"  mixture unmasked:                    {share(M, sirens, False):4.0f} / {share(M, speech, False):4.0f}")
        print(f"  each alone, as recorded:             {share(rms['si'], sirens, False, verbose):4.0f} / {share(rms['sp'], speech, False):4.0f}")
        print(f"  each alone, +6 dB:                   {share(2 * rms['si'], sirens, False):4.0f} / {share(2 * rms['sp'], speech, False):4.0f}")
        for name, mask in (("phase mask (true bearings)", near), ("ideal binary mask", ideal)):
            for floor in (0.0, REJECTED):
                for norm in (False, True):
                    a, b = M * np.where(mask, 1, floor), M * np.where(~mask, 1, floor)
                    tag = f"{name}, other bins {'zero' if floor == 0 else '-30 dB'}{', normalised' if norm else ''}"
                    print(f"  {tag:55s} {share(a, sirens, norm, verbose and norm and floor > 0):4.0f} / {share(b, speech, norm):4.0f}")
        e = lambda m, k: 100 * (rms[k] ** 2 * m).sum() / (rms[k] ** 2).sum()
        print(f"  the phase mask gives the siren {e(near, 'si'):.0f} % of the siren's energy and {e(near, 'sp'):.0f} % of the speech's"
              f" (ideal: {e(ideal, 'si'):.0f} % and {e(ideal, 'sp'):.0f} %)")
        # The masked siren as audio: the mask on the left channel's STFT, mixture phase, overlap-add.
        Lm = L * np.where(near, 1, REJECTED)
        frames = np.fft.irfft(Lm, 512, axis=1)[:, :400] * Y.WIN
        y = np.zeros(160 * (len(frames) - 1) + 400)
        norm = np.zeros_like(y)
        for i, f in enumerate(frames):
            y[i * 160:i * 160 + 400] += f
            norm[i * 160:i * 160 + 400] += Y.WIN ** 2
        y /= np.maximum(norm, 1e-3)
        path = os.path.join(out, f"masked-siren-{rt60}.wav")
        wavfile.write(path, 16000, (y / max(1e-9, np.max(np.abs(y))) * 0.9).astype(np.float32))
        print(f"  masked siren written to {path}", flush=True)


if __name__ == "__main__":
    main()
