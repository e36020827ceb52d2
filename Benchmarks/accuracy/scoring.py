"""Issue 31's scoring rule, shared by the accuracy evaluations (evaluate.py, heads.py, hrir.py).

Bearing accuracy is scored on a fixed set of frames: those where the truth says the source is
active, from the dry source's envelope (within 30 dB of its loudest frame, on SoundCompass's own
frames, delayed by the direct path), whatever the detector marks; every such frame counts with
the `azimuth` its record carries.
"""
import json
import subprocess

import numpy as np


def frame_truth(dry, times, frame_length, rate, delay, floor=1e-3):
    """Whether the dry source is audible in each analysis frame: within 30 dB of the loudest
    frame (`floor`, a power ratio, sets another), on the `frame_length` samples centred on each
    record's `times` (s), the dry signal delayed by the direct path (`delay`, s) at `rate` (Hz)."""
    shift = int(round(delay * rate))
    levels = np.zeros(len(times))
    for k, t in enumerate(times):
        start = int(round(t * rate)) - frame_length // 2 - shift
        seg = dry[max(0, start):max(0, start + frame_length)]
        levels[k] = np.mean(seg ** 2) if len(seg) else 0.0
    return levels > levels.max() * floor


def onset_delay(ir, rate, fraction=0.1):
    """The direct path's delay (s) of a (taps, channels) impulse response: its first tap, in any
    channel, within 20 dB (`fraction` of the peak's amplitude) of its largest."""
    magnitude = np.abs(np.asarray(ir)).max(axis=1)
    return float(np.argmax(magnitude >= fraction * magnitude.max())) / rate


def scored(binary, path, options, dry, rate, delay, truth):
    """Runs `soundcompass analyze PATH --format jsonl -q OPTIONS` and scores it by the rule above.
    `truth` is the azimuth (degrees) or a function of time (s) to one. Returns (absolute errors of
    the truth-active frames, truth-active frames, of those the ones the detector marks active,
    frames in all)."""
    out = subprocess.run([binary, "analyze", path, "--format", "jsonl", "-q"] + list(options),
                         check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in out.splitlines()]
    if not records:
        return [], 0, 0, 0
    # Frame i covers samples i*hop ..< i*hop + frame; its time is the frame centre.
    frame_length = int(round(2 * records[0]["time"] * rate))
    audible = frame_truth(dry, [r["time"] for r in records], frame_length, rate, delay)
    at = truth if callable(truth) else (lambda _t: truth)
    errors = [abs(r["azimuth"] - at(r["time"])) for r, a in zip(records, audible) if a]
    marked = sum(1 for r, a in zip(records, audible) if a and r["active"])
    return errors, int(np.sum(audible)), marked, len(records)
