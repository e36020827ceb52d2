#!/usr/bin/env python3
"""Real recordings placed at known bearings on a 15 cm pair: the scene of the browser test.

    real_scene.py OUTPUT.wav [--siren-azimuth DEG] [--talker-azimuth DEG] [--seconds S]

The sounds are recordings, not synthesis, from Debian packages that scripts/install-deps
installs (nothing is committed): the talker is the voice of alsa-utils'
/usr/share/sounds/alsa/*.wav (nine announcements, 48 kHz, GPL-2+), the siren is
scorched3d-data's policecar.wav (a police car's siren, 11.025 kHz, CC-BY-SA-3.0; the same file
as in Benchmarks/accuracy/labels_real_data.py), resampled to 48 kHz. The siren sounds from 5 s
to about 10.5 s (the first seconds are quiet, so that a browser opened at the start sees it
begin), and the talker starts speaking at 7.5 s, over it and on after it: a siren passes in the
street and someone talks. Both are placed in the free field by exact fractional delays (the
same geometry as `soundcompass synth`: a spaced pair, a source on the right reaches the right
microphone first), the siren 6 dB above the talker (levels over the samples within 30 dB of
each sound's peak), with seeded sensor noise 40 dB below the talker. Writes 48 kHz stereo float
WAV, and prints the truth as one line of JSON on stdout.

Reads the recordings through libsndfile (ctypes: the library SoundCompass itself links), so it
needs numpy and nothing else beyond the Debian packages.

(Before issue 44's stricter alert rule the scene used sound-theme-freedesktop's recorded alarm
clock. YAMNet names that clock "Beep, bleep" dry, but in this scene its pooled scores put
"Chink, clink" or "Glass" first and the alarm classes at 0.2-0.3, so it raises no alert under a
rule that cries wolf 1.7 times per 10 minutes instead of 14.6: Docs/Classification.md.)
"""
import argparse
import ctypes
import glob
import json
import sys

import numpy as np

RATE = 48000
SPACING = 0.15
SPEED_OF_SOUND = 343.0
SIREN = "/usr/share/games/scorched3d/data/globalmods/apoc/data/wav/misc/policecar.wav"
VOICES = "/usr/share/sounds/alsa/*.wav"


class _Info(ctypes.Structure):
    _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int), ("channels", ctypes.c_int),
                ("format", ctypes.c_int), ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]


def read_sound(path):
    """A sound file's samples as float32 mono (channels averaged) and its rate, via libsndfile."""
    library = ctypes.CDLL("libsndfile.so.1")
    library.sf_open.restype = ctypes.c_void_p
    library.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(_Info)]
    library.sf_readf_float.restype = ctypes.c_int64
    library.sf_readf_float.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
    library.sf_close.argtypes = [ctypes.c_void_p]
    info = _Info()
    handle = library.sf_open(path.encode(), 0x10, ctypes.byref(info))  # SFM_READ
    if not handle:
        raise SystemExit(f"real_scene: {path}: cannot be read (is its package installed? scripts/install-deps)")
    data = np.zeros(info.frames * info.channels, dtype=np.float32)
    read = library.sf_readf_float(handle, data.ctypes.data, info.frames)
    library.sf_close(handle)
    data = data[: read * info.channels].reshape(-1, info.channels).mean(axis=1)
    if info.samplerate != RATE:
        # Band-limited resampling by the FFT (the recording is short): zero-padded spectrum.
        count = int(round(len(data) * RATE / info.samplerate))
        data = (np.fft.irfft(np.fft.rfft(data), count) * count / len(data)).astype(np.float32)
    return data


def place(mono, azimuth, length, start):
    """`mono` from `start` samples on, as heard by the pair from `azimuth` degrees: (left, right)."""
    ux = np.sin(np.radians(azimuth))
    delays = ((SPACING / 2) * ux / SPEED_OF_SOUND, -(SPACING / 2) * ux / SPEED_OF_SOUND)
    padded = np.zeros(length)
    n = min(len(mono), length - start)
    padded[start:start + n] = mono[:n]
    spectrum = np.fft.rfft(padded)
    omega = 2 * np.pi * np.fft.rfftfreq(length, 1 / RATE)
    return [np.fft.irfft(spectrum * np.exp(-1j * omega * d), length) for d in delays]


def rms(x):
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else 0.0


def make(output, siren_azimuth=45.0, talker_azimuth=-40.0, seconds=16.0):
    length = int(seconds * RATE)
    voices = [read_sound(p) for p in sorted(glob.glob(VOICES))]
    if not voices:
        raise SystemExit(f"real_scene: no voices at {VOICES} (alsa-utils; scripts/install-deps)")
    gap = np.zeros(int(0.25 * RATE))
    talk = np.concatenate([np.concatenate([v, gap]) for v in voices])
    while len(talk) < length:
        talk = np.concatenate([talk, talk])
    talk = talk[:length]
    # The talker starts at 7.5 s (a 20 ms fade in).
    talker_start = 7.5
    gate = np.zeros(length)
    fade = int(0.02 * RATE)
    gate[int(talker_start * RATE):] = 1
    gate[int(talker_start * RATE):int(talker_start * RATE) + fade] = np.linspace(0, 1, fade)
    talk = np.roll(talk, int(talker_start * RATE)) * gate
    # The voices' level while speaking: RMS over the samples within 30 dB of the peak envelope.
    talk *= 0.05 / rms(talk[np.abs(talk) > 0.03 * np.abs(talk).max()])
    siren = read_sound(SIREN)
    siren_start = 5.0
    siren *= 2 * 0.05 / rms(siren[np.abs(siren) > 0.03 * np.abs(siren).max()])  # +6 dB
    left_t, right_t = place(talk, talker_azimuth, length, 0)
    left_a, right_a = place(siren, siren_azimuth, length, int(siren_start * RATE))
    noise = np.random.default_rng(44).standard_normal((2, length)) * 0.0005
    stereo = np.stack([left_t + left_a + noise[0], right_t + right_a + noise[1]], axis=1).astype(np.float32)
    write_float_wav(output, stereo)
    truth = {"talker_azimuth": talker_azimuth, "siren_azimuth": siren_azimuth, "siren_start": siren_start,
             "siren_end": siren_start + len(siren) / RATE, "talker_start": talker_start, "seconds": seconds}
    return truth


def write_float_wav(path, stereo):
    """A 32-bit float, 2-channel, 48 kHz WAV (WAVE_FORMAT_IEEE_FLOAT with a fact chunk)."""
    data = stereo.astype("<f4").tobytes()
    frames = stereo.shape[0]
    fmt = (3).to_bytes(2, "little") + (2).to_bytes(2, "little") + RATE.to_bytes(4, "little") \
        + (RATE * 8).to_bytes(4, "little") + (8).to_bytes(2, "little") + (32).to_bytes(2, "little") \
        + (0).to_bytes(2, "little")
    body = b"WAVE" + b"fmt " + len(fmt).to_bytes(4, "little") + fmt \
        + b"fact" + (4).to_bytes(4, "little") + frames.to_bytes(4, "little") \
        + b"data" + len(data).to_bytes(4, "little") + data
    with open(path, "wb") as f:
        f.write(b"RIFF" + len(body).to_bytes(4, "little") + body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("output")
    parser.add_argument("--siren-azimuth", type=float, default=45.0)
    parser.add_argument("--talker-azimuth", type=float, default=-40.0)
    parser.add_argument("--seconds", type=float, default=16.0)
    args = parser.parse_args()
    truth = make(args.output, args.siren_azimuth, args.talker_azimuth, args.seconds)
    print(json.dumps(truth))
    return 0


if __name__ == "__main__":
    sys.exit(main())
