#!/usr/bin/env python3
"""Real heads in a room (issue 31, item 2): the measured heads of heads.py heard in a shoebox room,
read with the head's own SOFA file (`--hrtf`) and with the default law (`--array binaural`).

An evaluation that prints figures, not a test. Needs what heads.py needs, and pyroomacoustics.

Scene: a 6 x 5 x 3 m room, walls absorbing alike, their absorption and the image-source order
from Sabine's formula for the RT60 (pyroomacoustics.inverse_sabine); the listener at
(2.4, 2.3, 1.5) m facing +x, the source 1.5 m away at the scored azimuth in the horizontal
plane. Each image source of the image-source model (pyroomacoustics, energy damping per
image) is heard through the head's measured impulse responses nearest its direction in the
horizontal plane (its elevation ignored: the files are read in their horizontal plane only),
delayed by its distance (to the nearest sample) and scaled by its damping over its distance.
Sources: espeak-ng speech and seeded white noise, 4 s, as heads.py's; uncorrelated sensor
noise 30 dB below. Scored as heads.py scores (scoring.py, issue 31's rule): on the frames where
the dry signal, delayed by the direct path, is within 30 dB of its loudest frame, the median
absolute error of each record's `azimuth`; per head the median of all those frames' errors
and the worst azimuth's median.

Usage: Benchmarks/accuracy/heads_room.py [--head NAME|all] [--rt60 S] [--step DEG]
                                          [--binary PATH] [--mode sofa,default]
"""
import os
import sys

import numpy as np
import pyroomacoustics as pra

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hrir  # noqa: E402  (speech, white noise)
import scoring  # noqa: E402  (issue 31's scoring rule)
from heads import BINARY, SNR, argument  # noqa: E402
from heads_data import HEADS, horizontal, sofa_path  # noqa: E402

CACHE = os.environ.get("SOUNDCOMPASS_EVALCACHE", "/tmp/soundcompass-heads-room-cache")
ROOM = [6.0, 5.0, 3.0]
LISTENER = np.array([2.4, 2.3, 1.5])
DISTANCE = 1.5
C = 343.0


def room_response(hrirs, rate, azimuth, rt60):
    """The head's two-ear response to a source at `azimuth` (ours: 0 ahead, positive right) in
    the room, and the direct path's delay (s)."""
    absorption, order = pra.inverse_sabine(rt60, ROOM, c=C)
    room = pra.ShoeBox(ROOM, fs=rate, materials=pra.Material(absorption), max_order=order)
    theta = np.radians(azimuth)
    # Facing +x with +y on the left: our azimuth (positive right) is -atan2(dy, dx).
    source = LISTENER + DISTANCE * np.array([np.cos(theta), -np.sin(theta), 0.0])
    room.add_source(source)
    room.add_microphone(LISTENER)
    room.image_source_model()
    images = room.sources[0].images
    damping = np.mean(room.sources[0].damping, axis=0)
    measured = np.array(sorted(hrirs))
    taps = max(ir.shape[0] for ir in hrirs.values())
    offsets = images - LISTENER[:, None]
    distances = np.linalg.norm(offsets, axis=0)
    length = int(np.ceil(distances.max() / C * rate)) + taps + 1
    out = np.zeros((length, 2))
    for k in range(images.shape[1]):
        direction = float(np.degrees(-np.arctan2(offsets[1, k], offsets[0, k])))
        nearest = measured[np.argmin(np.abs((measured - direction + 180) % 360 - 180))]
        ir = hrirs[nearest]
        start = int(round(distances[k] / C * rate))
        out[start:start + ir.shape[0]] += damping[k] / distances[k] * ir
    direct = DISTANCE / C + scoring.onset_delay(hrirs[measured[np.argmin(np.abs(measured - azimuth))]], rate)
    return out, direct


def render(head, kind, azimuth, response, dry, rate, rt60):
    key = f"{head}-{kind}-{azimuth:+07.2f}-rt{rt60:g}-snr{SNR:g}-{hrir.SECONDS:g}s.wav"
    seed = 200000 + int(round(azimuth * 100)) + (0 if kind == "speech" else 50000)
    return hrir.render_cached(os.path.join(CACHE, key), dry, response, rate, SNR, seed)


def main():
    binary = argument("--binary", BINARY)
    head_arg = argument("--head", "all")
    heads = list(HEADS) if head_arg == "all" else head_arg.split(",")
    modes = argument("--mode", "sofa,default").split(",")
    rt60 = float(argument("--rt60", "0.3"))
    step = float(argument("--step", "15"))
    print(f"| head | mode | sound | median | worst azimuth | azimuths within 5° / 10° |")
    print("|---|---|---|---|---|---|")
    for head in heads:
        rate, hrirs = horizontal(head)
        hrir.FS = rate
        dry = {"speech": hrir.speech(), "noise": hrir.white(7)}
        front = sorted(a for a in hrirs if abs(a) <= 90)
        azimuths = sorted({min(front, key=lambda a: abs(a - t)) for t in np.arange(-90, 90.01, step)})
        options = {"sofa": ["--hrtf", sofa_path(head)], "default": ["--array", "binaural"]}
        responses = {a: room_response(hrirs, rate, a, rt60) for a in azimuths}
        for mode in modes:
            for kind in ("speech", "noise"):
                errors = {}
                for a in azimuths:
                    response, direct = responses[a]
                    path = render(head, kind, a, response, dry[kind], rate, rt60)
                    errors[a] = scoring.scored(binary, path, options[mode], dry[kind], rate, direct, a)[0]
                pooled = np.concatenate([e for e in errors.values() if e] or [[np.nan]])
                medians = {a: float(np.median(e)) if e else float("inf") for a, e in errors.items()}
                worst = max(medians, key=medians.get)
                n5 = sum(m <= 5 for m in medians.values())
                n10 = sum(m <= 10 for m in medians.values())
                print(f"| {head} | {mode} | {kind} | {np.median(pooled):.2f}° | {medians[worst]:.1f}° ({worst:+g}°) "
                      f"| {n5}/{len(medians)} / {n10}/{len(medians)} |", flush=True)


if __name__ == "__main__":
    main()
