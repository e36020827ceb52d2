#!/usr/bin/env python3
"""The room's pull on a lone talker's bearing, and what the direct sound's precedence gives back.

A room's early reflections (the floor's and the ceiling's images first, about 5.6 ms after the
direct sound for a talker 1.5 m away at the pair's height in a 3 m room) reach the pair from
nearer the median plane. Within one analysis frame (32 ms) they are mixed with the direct sound;
when their delays lie within the correlation's resolution of the direct sound's (about one
over the signal's bandwidth: 125 us for 8 kHz of speech), the correlation peak is one merged
peak, pulled towards 0. On a 5 cm pair, a talker at 50 degrees and its floor image are 60 us apart.

Per azimuth, this script prints:
  - SoundCompass (`analyze`): the median signed error of the tracked `azimuth` over the talker's
    audible frames (positive: towards 0 degrees), the share within 10 degrees, and the median `itd_us` of
    its confident frames against the true delay (their ratio: 1 is unbiased);
  - NumPy GCC-PHAT on the same room signals without the sensor noise (a bound: under noise
    at 20 dB few onsets rise 8 times above what precedes them), the median lag of its frames against the true lag:
    every active 512-sample frame (the engine's frame at 16 kHz), and only the short windows
    (`--short`, default 128 samples: 8 ms) that start an onset (their energy at least 8 times
    the mean of the 16 ms before), where the direct sound arrives before its reflections;
    and, on the signals with the sensor noise, the short windows' bins whose power rises 10 times
    above their own recent mean (an onset per bin: see rising_bins_ratio).

Scenes: evaluate.py's (the speech talker 1.5 m from the pair in the 6 x 5 x 3 m room, sensor noise
20 dB below; renders cached with --cache).

Usage: Benchmarks/accuracy/precedence.py [--spacing M] [--rt60 S] [--azimuths=-50,-30,30,50]
                                         [--short N] [--cache DIR]
The binary is .build/release/soundcompass, or $SOUNDCOMPASS_BINARY when set.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from scipy.io import wavfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import evaluate as ev  # noqa: E402

SECONDS = 8.0
SNR_DB = 20


def soundcompass(noisy, dry, azimuth):
    """(median signed error towards 0 degrees, share within 10 degrees, median |itd| / true |itd|)."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.wav")
        wavfile.write(path, ev.FS, (noisy.T / max(1.0, np.abs(noisy).max() * 1.01)).astype(np.float32))
        out = subprocess.run([ev.BINARY, "analyze", path, "--format", "jsonl", "-q", "--spacing", str(ev.SPACING)],
                             check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in out.splitlines()]
    frame_length = int(round(2 * records[0]["time"] * ev.FS))
    audible = ev.frame_truth(dry, [r["time"] for r in records], frame_length)
    heard = [r for r, a in zip(records, audible) if a]
    errors = np.array([r["azimuth"] - azimuth for r in heard])
    toward_zero = -np.sign(azimuth) * errors if azimuth != 0 else errors
    itd = np.array([abs(r["itd_us"]) for r in heard if r["confidence"] > 0.2])
    true_itd = ev.SPACING / 343.0 * abs(np.sin(np.radians(azimuth))) * 1e6
    ratio = np.median(itd) / true_itd if true_itd > 0 and len(itd) else float("nan")
    return float(np.median(toward_zero)), float(np.mean(np.abs(errors) <= 10)), ratio


def phat_lag(cross, freqs, lags):
    """The lag (samples, on the grid `lags`) of the largest PHAT-weighted correlation of `cross`."""
    whitened = np.where(np.abs(cross) > 0, cross / np.maximum(np.abs(cross), 1e-20), 0)
    r = np.real(np.exp(-2j * np.pi * np.outer(lags, freqs) / ev.FS) @ whitened)
    return lags[np.argmax(r)]


def numpy_ratios(wet, true_lag, short):
    """Median lag / true lag: every active 512-sample frame, and the short onset windows."""
    lags = np.linspace(-1.5 * abs(true_lag) - 1, 1.5 * abs(true_lag) + 1, 1201)
    mix = wet.sum(axis=0)
    out = []
    for size, onsets_only in ((512 * ev.FS // 16000, False), (short, True)):
        hop, window, freqs = size // 4, np.hanning(size), np.fft.rfftfreq(size, 1 / ev.FS)
        energy = np.array([np.sum(mix[s:s + size] ** 2) for s in range(0, len(mix) - size, hop)])
        history = max(2, int(0.016 * ev.FS / hop))
        found = []
        for i in range(history, len(energy)):
            if energy[i] < 1e-4 * energy.max():
                continue
            if onsets_only and energy[i] < 8 * np.mean(energy[i - history:i - 1]):
                continue
            s = i * hop
            left, right = np.fft.rfft(wet[0, s:s + size] * window), np.fft.rfft(wet[1, s:s + size] * window)
            found.append(phat_lag(np.conj(left) * right, freqs, lags))
        out.append((np.median(found) / true_lag if true_lag else float("nan"), len(found)))
    return out


def rising_bins_ratio(signals, true_lag, short, rise=10.0):
    """Median lag / true lag of the short windows (hop a quarter of one) over only the bins whose
    power is at least `rise` times their mean over the 12 windows before the last one that
    does not overlap (an onset per bin, which sensor noise does not hide as it hides a whole
    window's); windows with fewer than an eighth of their bins rising are skipped.
    Returns (ratio, windows)."""
    lags = np.linspace(-1.5 * abs(true_lag) - 1, 1.5 * abs(true_lag) + 1, 1201)
    hop, window, freqs = short // 4, np.hanning(short), np.fft.rfftfreq(short, 1 / ev.FS)
    count = (signals.shape[1] - short) // hop
    left = np.array([np.fft.rfft(signals[0, i * hop:i * hop + short] * window) for i in range(count)])
    right = np.array([np.fft.rfft(signals[1, i * hop:i * hop + short] * window) for i in range(count)])
    power = np.abs(left) ** 2 + np.abs(right) ** 2
    found = []
    for i in range(16, count):
        rising = power[i] > rise * (power[i - 16:i - 4].mean(axis=0) + 1e-20)
        if rising.sum() < len(freqs) // 8:
            continue
        found.append(phat_lag(np.where(rising, np.conj(left[i]) * right[i], 0), freqs, lags))
    return (np.median(found) / true_lag if true_lag and found else float("nan")), len(found)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spacing", type=float, default=0.05)
    parser.add_argument("--rt60", type=float, default=0.3)
    parser.add_argument("--azimuths", default="-50,-30,30,50", help="degrees, comma-separated (--azimuths=-50,50)")
    parser.add_argument("--short", type=int, default=128)
    parser.add_argument("--cache")
    args = parser.parse_args()
    ev.SPACING = args.spacing
    if args.cache:
        ev.CACHE = args.cache
        os.makedirs(args.cache, exist_ok=True)
    dry = ev.speech(SECONDS)
    active = ev.activity(dry)
    print(f"spacing {args.spacing} m, RT60 {args.rt60} s, {ev.FS} Hz, sensor noise {SNR_DB} dB below")
    print("azimuth  SoundCompass: pull deg / within 10 / itd ratio   "
          f"NumPy GCC-PHAT lag ratio: 512-sample frames / {args.short}-sample onset windows / "
          "their rising bins, with the sensor noise")
    for k, azimuth in enumerate(int(a) for a in args.azimuths.split(",")):
        wet = ev.cached(("static", False, SECONDS, args.rt60, azimuth, ev.pra.__version__),
                        lambda: ev.render(dry, lambda t: float(azimuth), args.rt60))
        noisy = ev.add_noise(wet, active, SNR_DB, seed=100 + k)
        pull, within, itd_ratio = soundcompass(noisy, dry, azimuth)
        true_lag = ev.SPACING / 343.0 * np.sin(np.radians(azimuth)) * ev.FS  # the phase of conj(L)·R
        (frames, n_frames), (onsets, n_onsets) = numpy_ratios(wet, true_lag, args.short)
        rising, n_rising = rising_bins_ratio(noisy, true_lag, args.short)
        print(f"{azimuth:+5d}    {pull:+5.1f} / {100 * within:3.0f}% / {itd_ratio:.2f}"
              f"                          {frames:.3f} ({n_frames}) / {onsets:.3f} ({n_onsets})"
              f" / {rising:.3f} ({n_rising})", flush=True)


if __name__ == "__main__":
    main()
