#!/usr/bin/env python3
"""Accuracy in simulated rooms: SoundCompass against pyroomacoustics' own DOA methods.

An evaluation that prints figures, not a test. It needs `pip install pyroomacoustics` and
`apt-get install espeak-ng` (speech) besides the release build of soundcompass.

Scenes (at 16 kHz unless --rate says otherwise, a two-microphone pair 0.15 m apart along x in a 6 x 5 x 3 m shoebox
room whose absorption is set by inverse Sabine for the RT60; sources 1.5 m from the pair's
centre, at 0 = ahead (+y), negative left, positive right):
  * speech (espeak-ng, several sentences) at -60, -30, 0, 30, 60 degrees;
  * white noise sources at the same azimuths;
  * speech moving along an arc from -60 to +60 degrees (piecewise-static, 0.25 s steps);
for RT60 in 0.2 ... 0.8 s and uncorrelated sensor noise at SNR 0 ... 30 dB;
  * speech at -60, -40, -30, 0, 30, 60 degrees in diffuse noise ("diffuse"): 12 independent
    pink-noise sources near the walls, rendered through the same room, mixed at SNR 0 ... 10 dB
    (their summed power at the microphones against the talker's on its audible samples), plus
    sensor noise 30 dB below the talker.

For each condition it prints the median absolute error and the shares within 5 and 10
degrees of
  * SoundCompass: the tracked `azimuth` of every active frame (`soundcompass analyze`), and
    its coverage: the share of the frames where the dry source is audible that it marks active;
    and the tracked azimuth of every frame where the dry source is audible, active or not (what
    a user sees, scored like the pyroomacoustics methods);
  * SRP-PHAT, NormMUSIC and MUSIC (pyroomacoustics.doa), on the same two-channel signals,
    one estimate per 0.25 s block of STFT frames (nfft 512) over 200-4000 Hz, on the front
    half-plane (a pair cannot tell front from back), for blocks where the source is audible.

The column "frame recall / precision" scores SoundCompass's activity decision frame by frame
against `frame_truth()` (the dry source within 30 dB of its loudest frame, on SoundCompass's own
frames, delayed by the direct path): recall = active and audible / audible, precision = active
and audible / active. The line after the table pools the static speech rows at SNR >= 5 dB, and
adds the precision against the reverberant source (the noise-free room signal within 30 dB of
its loudest frame): the room's decay after a word is no false alarm there.

Several sources (--multi, a table of its own; the rows above are not run): two talkers (espeak-ng,
a different voice and text each) at -40/+30, -60/+20 and -20/+50 degrees, three talkers at
-50/0/+45, a talker and a steady pink-noise source as loud (-30/+40, +50/-20) and one talker at
-60 ... 60 degrees, anechoic and at RT60 0.3 and 0.6 s, sensor noise at SNR 20 dB (against the
mixture's power where any source is active). A source is active in a frame when its dry signal,
delayed by the direct path, is within 20 dB of its loudest frame (MULTI_FLOOR). Per scene:
  * the share of the sources' active frames with a reported source within 10 degrees, pooled and
    for the worst source (each source of each layout); the median error to the nearest reported
    source; the false share: reported sources farther than 15 degrees from every true source, over
    all reported sources, in every frame;
  * for SoundCompass, "reported" is scored two ways: the entries of `sources` with `active` true,
    and every entry listed (active or not, any confidence);
  * for one talker also the ghost-free share: active frames with at most one reported source;
  * the false active sources by kind, each as a share of all active sources reported: within 8
    degrees of the bearing of an image source (orders 1 and 2, pyroomacoustics' image-source model
    of the same shoebox) of the steady noise, of a talker, or "other";
  * SRP-PHAT and NormMUSIC: as many of the highest peaks as there are true sources, per 0.25 s block
    (a source is active in a block when it is active on half its samples), scored the same way.
--max-sources N and --source-window S are passed to soundcompass (default: its own, 3 and 0.3 s);
--coincident renders the same scenes for an XY pair of cardioids at 90 degrees at the centre instead
of the spaced pair and runs `soundcompass --array coincident` (no pyroomacoustics columns: their
methods need a time difference);
--detail prints per-layout figures
and those of active sources with a confidence of at least 0.6 (a measured share, see Docs/OutputFormat.md) to stderr.

Usage: Benchmarks/accuracy/evaluate.py [--quick] [--markdown] [--only KIND:RT60:SNR] [--cache DIR]
                                       [--snrs 5,10,20] [--rate HZ] [--spacing M] [--azimuths -50,50]
       Benchmarks/accuracy/evaluate.py --multi [--markdown] [--cache DIR] [--max-sources N] [--source-window S]
                                       [--coincident] [--detail] [--no-baselines]
       Benchmarks/accuracy/evaluate.py --steady [--no-steady-sources] [--only RT60:NOISE_DB] [--detail] [--cache DIR]
       Benchmarks/accuracy/evaluate.py --diffuse-field [--cache DIR] [--rate HZ]   (a talker in diffuse noise per azimuth)
  --only KIND:RT60:SNR   one condition, e.g. speech:0.6:10 or diffuse:0.3:0
  --cache DIR            keep the room renders in DIR (keyed by their parameters) for re-runs
  --snrs LIST            the sensor-noise SNRs of the speech rows, dB
  --rate HZ              render and analyse at HZ instead of 16000 (the main table and --diffuse-field;
                         the renders are cached under keys that include the rate; the pyroomacoustics
                         methods keep their 512-point frames, so their columns differ with the rate)
  --spacing M            the pair's spacing, metres (default 0.15; the main table and --diffuse-field;
                         the renders are cached under keys that include it)
  --azimuths LIST        the main table's source azimuths, degrees (default -60,-30,0,30,60)
The binary is .build/release/soundcompass, or $SOUNDCOMPASS_BINARY when set.
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import pyroomacoustics as pra
from scipy.io import wavfile
from scipy.signal import resample_poly

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scoring  # noqa: E402  (issue 31's scoring rule)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("SOUNDCOMPASS_BINARY") or os.path.join(ROOT, ".build", "release", "soundcompass")
CACHE = None
# --multi --coincident: an XY pair of cardioids instead of the spaced pair (see room()).
COINCIDENT = False
FS = 16000
SPACING = 0.15
ROOM = [6.0, 5.0, 3.0]
CENTRE = np.array([3.0, 2.0, 1.5])
DISTANCE = 1.5
SENTENCES = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Please turn left at the second crossing and wait for the green light.",
    "Where did you put the keys? I thought they were on the kitchen table.",
    "Sound travels at about three hundred and forty metres per second in air.",
]


def speech(seconds):
    """espeak-ng speech at FS, repeated to `seconds`."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.wav")
        subprocess.run(["espeak-ng", "-s", "150", "-w", path, " ".join(SENTENCES)], check=True)
        rate, data = wavfile.read(path)
    x = data.astype(np.float64) / 32768.0
    x = resample_poly(x, FS, rate)
    reps = int(np.ceil(seconds * FS / len(x)))
    x = np.tile(x, reps)[: int(seconds * FS)]
    return x / np.sqrt(np.mean(x ** 2)) * 0.05


def white(seconds, seed):
    rng = np.random.default_rng(seed)
    return rng.standard_normal(int(seconds * FS)) * 0.05


def pink(seconds, seed):
    """Pink (1/f power) noise, RMS 0.05."""
    rng = np.random.default_rng(seed)
    n = int(seconds * FS)
    x = np.fft.irfft(pink_shaped(np.fft.rfft(rng.standard_normal(n)), n), n)
    return x / np.sqrt(np.mean(x ** 2)) * 0.05


def pink_shaped(spectrum, n):
    """`spectrum` (an rfft of `n` samples, changed in place) given a 1/f power: bin k divided
    by sqrt(k), DC zeroed."""
    f = np.fft.rfftfreq(n, 1 / FS)
    spectrum[1:] /= np.sqrt(f[1:] / f[1])
    spectrum[0] = 0
    return spectrum


DIFFUSE_SOURCES = 12


def wall_positions(count, seed):
    """`count` points 0.3-0.5 m from the walls, spread around the room at 0.5-2.5 m height."""
    rng = np.random.default_rng(seed)
    perimeter = 2 * (ROOM[0] + ROOM[1])
    points = []
    for i in range(count):
        s = (i + rng.uniform(0.2, 0.8)) / count * perimeter
        inset = rng.uniform(0.3, 0.5)
        if s < ROOM[0]:
            x, y = s, inset
        elif s < ROOM[0] + ROOM[1]:
            x, y = ROOM[0] - inset, s - ROOM[0]
        elif s < 2 * ROOM[0] + ROOM[1]:
            x, y = ROOM[0] - (s - ROOM[0] - ROOM[1]), ROOM[1] - inset
        else:
            x, y = inset, ROOM[1] - (s - 2 * ROOM[0] - ROOM[1])
        points.append([min(max(x, inset), ROOM[0] - inset), min(max(y, inset), ROOM[1] - inset),
                       rng.uniform(0.5, 2.5)])
    return points


def cached(key, make):
    """`make()` (an array), kept in CACHE under a hash of `key` when --cache is given."""
    if CACHE is None:
        return make()
    if FS != 16000:  # the 16 kHz keys stay as they were
        key = (key, FS)
    if SPACING != 0.15:  # and so do the 15 cm ones
        key = (key, "spacing", SPACING)
    path = os.path.join(CACHE, hashlib.sha1(repr(key).encode()).hexdigest()[:16] + ".npy")
    if os.path.exists(path):
        return np.load(path)
    value = make()
    np.save(path + ".tmp.npy", value)
    os.replace(path + ".tmp.npy", path)
    return value


def diffuse_noise(seconds, rt60, seed, count=DIFFUSE_SOURCES):
    """The two microphone signals of `count` independent pink-noise sources near the walls."""
    def make():
        r = room(rt60)
        for i, p in enumerate(wall_positions(count, seed)):
            r.add_source(p, signal=pink(seconds, seed * 100 + i))
        r.simulate()
        return r.mic_array.signals[:, :int(seconds * FS)]
    return cached(("diffuse noise", seconds, rt60, seed, count, pra.__version__), make)


def position(azimuth):
    theta = np.radians(azimuth)
    return CENTRE + DISTANCE * np.array([np.sin(theta), np.cos(theta), 0.0])


def room(rt60):
    """The shoebox with the pair; `rt60` 0 is anechoic (the direct path only). With COINCIDENT,
    the pair is an XY pair of cardioids at 90 degrees at the centre (pyroomacoustics directivities),
    as `soundcompass --array coincident` assumes by default."""
    if rt60 == 0:
        r = pra.ShoeBox(ROOM, fs=FS, max_order=0)
    else:
        absorption, max_order = pra.inverse_sabine(rt60, ROOM)
        r = pra.ShoeBox(ROOM, fs=FS, materials=pra.Material(absorption), max_order=max_order)
    if COINCIDENT:
        from pyroomacoustics.directivities import Cardioid, DirectionVector
        # Our azimuth runs from +y (ahead) towards +x (right); pyroomacoustics' from +x towards +y.
        aim = [Cardioid(orientation=DirectionVector(azimuth=90 - a, colatitude=90, degrees=True), gain=1.0)
               for a in (-45, 45)]
        mics = np.array([[CENTRE[0]] * 2, [CENTRE[1]] * 2, [CENTRE[2]] * 2])
        r.add_microphone_array(pra.MicrophoneArray(mics, FS, directivity=aim))
        return r
    mics = np.array([[CENTRE[0] - SPACING / 2, CENTRE[0] + SPACING / 2], [CENTRE[1]] * 2, [CENTRE[2]] * 2])
    r.add_microphone_array(pra.MicrophoneArray(mics, FS))
    return r


def render(dry, path_of_time, rt60, step=None):
    """Convolves `dry` with the room for the azimuth path (piecewise-static in `step` s)."""
    n = len(dry)
    if step is None:
        r = room(rt60)
        r.add_source(position(path_of_time(0)), signal=dry)
        r.simulate()
        return r.mic_array.signals[:, :n]
    out = np.zeros((2, n + FS * 2))
    hop = int(step * FS)
    fade = np.hanning(2 * hop)
    for start in range(0, n, hop):
        seg = np.zeros(min(2 * hop, n - start))
        seg[:] = dry[start:start + len(seg)] * fade[: len(seg)]
        r = room(rt60)
        r.add_source(position(path_of_time((start + hop) / FS)), signal=seg)
        r.simulate()
        sig = r.mic_array.signals
        out[:, start:start + sig.shape[1]] += sig[:, : out.shape[1] - start]
    return out[:, :n]


def add_diffuse(wet, dry_active, noise, snr, seed):
    """`wet` plus `noise` scaled to `snr` dB below the talker's power on its audible samples,
    plus sensor noise 30 dB below it."""
    power = np.mean(wet[:, dry_active] ** 2)
    noise = noise * np.sqrt(power / 10 ** (snr / 10) / np.mean(noise ** 2))
    sensor = np.random.default_rng(seed).standard_normal(wet.shape) * np.sqrt(power / 1e3)
    return wet + noise + sensor


def add_noise(wet, dry_active, snr, seed):
    rng = np.random.default_rng(seed)
    power = np.mean(wet[:, dry_active] ** 2)
    noise = rng.standard_normal(wet.shape) * np.sqrt(power / 10 ** (snr / 10))
    return wet + noise


def activity(dry, frame=None):
    """Per-sample mask of where the dry source is within 30 dB of its loudest 0.25 s (blocks of
    32 ms: 512 samples at 16 kHz)."""
    frame = frame or 512 * FS // 16000
    mask = np.zeros(len(dry), dtype=bool)
    levels = [np.mean(dry[i:i + frame] ** 2) for i in range(0, len(dry), frame)]
    top = max(levels)
    for k, level in enumerate(levels):
        if level > top * 1e-3:
            mask[k * frame:(k + 1) * frame] = True
    return mask


def frame_truth(dry, times, frame_length, delay=DISTANCE / 343.0, floor=1e-3):
    """Whether the dry source is audible in each analysis frame (scoring.frame_truth at FS: within
    30 dB of the loudest frame; `floor`, a power ratio, sets another), on SoundCompass's own frames,
    the `frame_length` samples centred on each record's `times` (s), the dry signal delayed by the
    direct path (`delay`, s)."""
    return scoring.frame_truth(dry, times, frame_length, FS, delay, floor)


def soundcompass(signals, truth, dry, wet, audible_records=None):
    """SoundCompass on `signals`, scored by the rule of issue 31: bearing accuracy on the frames
    where the truth says the source is active (`frame_truth()` of the dry source, on
    SoundCompass's own frames), whatever the detector marks, with the `azimuth` each record
    carries; and the activity counts (active and audible, active, audible frames; active frames
    where the reverberant source, the noise-free room signal `wet`, is within 30 dB of its
    loudest frame). The records of the audible frames are appended to `audible_records` when
    given."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.wav")
        wavfile.write(path, FS, (signals.T / max(1.0, np.abs(signals).max() * 1.01)).astype(np.float32))
        out = subprocess.run([BINARY, "analyze", path, "--format", "jsonl", "-q", "--spacing", str(SPACING)],
                             check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in out.splitlines()]
    # Frame i covers samples i*hop ..< i*hop + frame; its time is the frame centre.
    frame_length = int(round(2 * records[0]["time"] * FS))
    times = [r["time"] for r in records]
    audible = frame_truth(dry, times, frame_length)
    marked = np.array([bool(r["active"]) for r in records])
    reverberant = frame_truth(wet.sum(axis=0), times, frame_length, delay=0)
    counts = np.array([np.sum(marked & audible), np.sum(marked), np.sum(audible), np.sum(marked & reverberant)])
    errors = [abs(r["azimuth"] - truth(r["time"])) for r, a in zip(records, audible) if a]
    if audible_records is not None:
        audible_records += [r for r, a in zip(records, audible) if a]
    return errors, counts


def pyroom_methods(signals, truth, active, names, key=None):
    """Errors of each pyroomacoustics method (see the module's doc); kept in CACHE under `key`
    (the condition) when given."""
    if key is not None and CACHE is not None:
        results = {}
        for name in names:
            results[name] = list(cached(("pyroom errors", name) + key,
                                        lambda n=name: np.array(pyroom_methods(signals, truth, active, [n])[n])))
        return results
    nfft, hop = 512, 256
    X = pra.transform.stft.analysis(signals.T, nfft, hop).transpose([2, 1, 0])  # (mics, freq, frames)
    grid = np.radians(np.arange(0, 181, 1.0))  # pra azimuth from +x; front half-plane
    mics = np.array([[-SPACING / 2, SPACING / 2], [0.0, 0.0]])
    block = int(0.25 * FS / hop)
    results = {}
    for name in names:
        doa = pra.doa.algorithms[name](mics, FS, nfft, c=343.0, num_src=1, azimuth=grid)
        errors = []
        for start in range(0, X.shape[2] - block, block):
            centre = (start + block / 2) * hop / FS
            samples = slice(start * hop, (start + block) * hop)
            if active[samples].mean() < 0.5:
                continue
            doa.locate_sources(X[:, :, start:start + block], freq_range=[200.0, 4000.0])
            ours = 90.0 - np.degrees(doa.azimuth_recon[0])
            errors.append(abs(ours - truth(centre)))
        results[name] = errors
    return results


def summary(errors):
    if not errors:
        return (float("nan"), 0.0, 0.0)
    e = np.array(errors)
    return (float(np.median(e)), float(np.mean(e <= 5)), float(np.mean(e <= 10)))


def main():
    global CACHE
    if "--cache" in sys.argv:
        CACHE = sys.argv[sys.argv.index("--cache") + 1]
        os.makedirs(CACHE, exist_ok=True)
    quick = "--quick" in sys.argv
    markdown = "--markdown" in sys.argv
    if not os.path.exists(BINARY):
        subprocess.run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=ROOT, check=True)
    seconds = 6.0 if quick else 8.0
    dry_speech = speech(seconds)
    methods = ["SRP", "NormMUSIC", "MUSIC"]
    conditions = []
    rt60s = [0.2, 0.6] if quick else [0.2, 0.4, 0.6, 0.8]
    snrs = [10, 30] if quick else [0, 10, 20, 30]
    if "--snrs" in sys.argv:
        snrs = [int(v) for v in sys.argv[sys.argv.index("--snrs") + 1].split(",")]
    azimuths = [-60, -30, 0, 30, 60]
    if "--azimuths" in sys.argv:
        azimuths = [int(v) for v in sys.argv[sys.argv.index("--azimuths") + 1].split(",")]
    diffuse_azimuths = [-60, -40, -30, 0, 30, 60]
    for rt60 in rt60s:
        for snr in snrs:
            conditions.append(("speech", rt60, snr))
    conditions += [("noise", 0.6, 10), ("moving speech", 0.2, 20), ("moving speech", 0.6, 10)]
    conditions += [("diffuse", 0.3, snr) for snr in ([0, 10] if quick else [0, 5, 10])]
    if not quick:
        conditions.append(("diffuse", 0.6, 5))
    if "--only" in sys.argv:
        kind, rt, sn = sys.argv[sys.argv.index("--only") + 1].split(":")
        conditions = [(kind, float(rt), int(sn))]

    header = ["source", "RT60 s", "SNR dB", "SoundCompass median / <=5 / <=10",
              "SoundCompass frame recall / precision / precision vs reverberant"] + \
        [f"{m} median / <=5 / <=10" for m in methods]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("  ".join(header))
    pooled = np.zeros(4, dtype=int)  # speech rows at SNR >= 5 dB: see soundcompass()
    for kind, rt60, snr in conditions:
        ours, theirs = [], {m: [] for m in methods}
        frames = np.zeros(4, dtype=int)
        runs = [None] if kind == "moving speech" else diffuse_azimuths if kind == "diffuse" else azimuths
        for k, azimuth in enumerate(runs):
            if kind == "moving speech":
                dry = dry_speech
                path = lambda t: float(np.clip(-60 + 120 * t / seconds, -60, 60))
                wet = cached(("moving", seconds, rt60, pra.__version__), lambda: render(dry, path, rt60, step=0.25))
            else:
                dry = white(seconds, 7 + k) if kind == "noise" else dry_speech
                path = lambda t, a=azimuth: float(a)
                wet = cached(("static", kind == "noise" and k, seconds, rt60, azimuth, pra.__version__),
                             lambda: render(dry, path, rt60))
            active = activity(dry)
            if kind == "diffuse":
                noise = diffuse_noise(seconds, rt60, seed=200 + k)
                noisy = add_diffuse(wet, active, noise, snr, seed=100 + k)
            else:
                noisy = add_noise(wet, active, snr, seed=100 + k)
            errors, counts = soundcompass(noisy, path, dry, wet)
            frames += counts
            ours += errors
            key = (kind, rt60, snr, azimuth, seconds, pra.__version__)
            for m, e in pyroom_methods(noisy, path, active, methods, key=key).items():
                theirs[m] += e
        cells = [kind, f"{rt60:.1f}", f"{snr}"]
        for k, errors in enumerate([ours] + [theirs[m] for m in methods]):
            med, f5, f10 = summary(errors)
            cells.append(f"{med:5.1f} / {100 * f5:3.0f}% / {100 * f10:3.0f}%")
            if k == 0:
                cells.append(f"{100 * frames[0] / max(1, frames[2]):3.0f}% / {100 * frames[0] / max(1, frames[1]):3.0f}% / "
                             f"{100 * frames[3] / max(1, frames[1]):3.0f}%")
        print(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells), flush=True)
        if kind == "speech" and snr >= 5:
            pooled += frames
    if pooled[2] > 0:
        print(f"\nspeech rows at SNR \u2265 5 dB: recall {100 * pooled[0] / pooled[2]:.1f}% "
              f"precision {100 * pooled[0] / max(1, pooled[1]):.1f}% "
              f"({pooled[2]} audible frames, {pooled[1]} active); precision against the reverberant "
              f"source {100 * pooled[3] / max(1, pooled[1]):.1f}%", flush=True)


# ---------------------------------------------------------------------------------------------
# Several sources (--multi): issue 16, item 5.

TALKERS = [  # (espeak-ng voice, pitch 0-99, words per minute, text): a different voice and text each
    ("en-us", 35, 150, " ".join(SENTENCES[:2])),
    ("en-gb-scotland", 75, 165, " ".join(SENTENCES[2:])),
    ("en-gb-x-rp", 55, 140, "Could you bring the red folder from the office upstairs? "
     "The meeting starts at half past nine, so we still have a little time. "
     "I will call you back when the train arrives at the station."),
]
MULTI_SECONDS = 8.0
MULTI_FLOOR = 1e-2      # a source is "active" in a frame within 20 dB of its loudest frame
HIT_DEGREES = 10.0
FALSE_DEGREES = 15.0


def talker(index, seconds):
    """Talker `index` of TALKERS at FS, RMS 0.05, repeated to `seconds`."""
    voice, pitch, rate_wpm, text = TALKERS[index]
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "s.wav")
        subprocess.run(["espeak-ng", "-v", voice, "-p", str(pitch), "-s", str(rate_wpm), "-w", path, text], check=True)
        rate, data = wavfile.read(path)
    x = resample_poly(data.astype(np.float64) / 32768.0, FS, rate)
    x = np.tile(x, int(np.ceil(seconds * FS / len(x))))[: int(seconds * FS)]
    return x / np.sqrt(np.mean(x ** 2)) * 0.05


def render_static(name, dry, azimuth, rt60):
    """The two microphone signals of `dry` from `azimuth` (cached under `name`)."""
    return cached(("multi", name, len(dry), rt60, azimuth, pra.__version__) + (("xy",) if COINCIDENT else ()),
                  lambda: render(dry, lambda t: float(azimuth), rt60))


def multi_scenes():
    """(label, RT60 s, [(source name, azimuth)]) for the --multi table."""
    scenes = []
    for rt60 in (0.0, 0.3, 0.6):
        scenes.append(("2 talkers", rt60, [[("talker0", -40), ("talker1", 30)],
                                           [("talker0", -60), ("talker1", 20)],
                                           [("talker0", -20), ("talker1", 50)]]))
    for rt60 in (0.0, 0.3, 0.6):
        scenes.append(("3 talkers", rt60, [[("talker0", -50), ("talker1", 0), ("talker2", 45)]]))
    for rt60 in (0.0, 0.3, 0.6):
        scenes.append(("talker + pink noise", rt60, [[("talker0", -30), ("pink", 40)],
                                                     [("talker1", 50), ("pink", -20)]]))
    for rt60 in (0.0, 0.3, 0.6):
        scenes.append(("1 talker", rt60, [[("talker0", a)] for a in (-60, -30, 0, 30, 60)]))
    return scenes


def dry_source(name, seconds):
    if name == "pink":
        return pink(seconds, 31)  # steady from the first sample, as loud as a talker (RMS 0.05)
    return talker(int(name[len("talker"):]), seconds)


def multi_soundcompass(signals, max_sources, source_window=None):
    """The `sources` of every record of `soundcompass analyze`, and the frame length."""
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "x.wav")
        wavfile.write(path, FS, (signals.T / max(1.0, np.abs(signals).max() * 1.01)).astype(np.float32))
        args = [BINARY, "analyze", path, "--format", "jsonl", "-q"]
        args += ["--array", "coincident"] if COINCIDENT else ["--spacing", str(SPACING)]
        if max_sources is not None:
            args += ["--max-sources", str(max_sources)]
        if source_window is not None:
            args += ["--source-window", str(source_window)]
        if "--no-steady-sources" in sys.argv:
            args += ["--no-steady-sources"]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    records = [json.loads(line) for line in out.splitlines()]
    return records, int(round(2 * records[0]["time"] * FS))


class Score:
    """Per true source: frames where it is active, hits within HIT_DEGREES, errors to the nearest
    reported source; and all reported sources, those farther than FALSE_DEGREES from every true one,
    and (single talker) active frames with a second reported source."""

    def __init__(self):
        self.active, self.hits, self.errors = [], [], []
        self.reported, self.false, self.ghost_frames, self.single_frames = 0, 0, 0, 0
        self.kinds = {kind: 0 for kind in GHOST_KINDS}

    def add(self, truths, active_masks, estimates, kind_of=None):
        """`truths` the true azimuths; `active_masks[i][k]` source i active in frame/block k;
        `estimates[k]` the azimuths reported in frame/block k; `kind_of(azimuth)` names what a
        false source is (one of GHOST_KINDS)."""
        for i, (azimuth, mask) in enumerate(zip(truths, active_masks)):
            n, h, errs = 0, 0, []
            for k, on in enumerate(mask):
                if not on:
                    continue
                n += 1
                if estimates[k]:
                    e = min(abs(x - azimuth) for x in estimates[k])
                    errs.append(e)
                    h += e <= HIT_DEGREES
            self.active.append(n)
            self.hits.append(h)
            self.errors += errs
            if len(truths) == 1:
                self.single_frames += n
                self.ghost_frames += sum(1 for k, on in enumerate(mask) if on and len(estimates[k]) > 1)
        for est in estimates:
            for x in est:
                self.reported += 1
                false = min(abs(x - a) for a in truths) > FALSE_DEGREES
                self.false += false
                if false and kind_of is not None:
                    self.kinds[kind_of(x)] += 1

    def kind_cell(self):
        """The false sources by kind, each as a share of all reported sources."""
        return " / ".join(f"{100 * self.kinds[k] / max(1, self.reported):4.1f}%" for k in GHOST_KINDS)

    def cells(self, single):
        share = [h / max(1, n) for h, n in zip(self.hits, self.active)]
        pooled = sum(self.hits) / max(1, sum(self.active))
        med = float(np.median(self.errors)) if self.errors else float("nan")
        false = self.false / max(1, self.reported)
        text = f"{100 * pooled:3.0f}% (min {100 * min(share):3.0f}%) / {med:4.1f} / {100 * false:3.0f}%"
        if single:
            text += f" / {100 * (1 - self.ghost_frames / max(1, self.single_frames)):3.0f}%"
        return text, pooled, min(share), false, 1 - self.ghost_frames / max(1, self.single_frames)


GHOST_KINDS = ("image of a steady source", "image of a talker", "other")
IMAGE_ORDER = 2          # the image sources a false source is compared with: up to second order
IMAGE_DEGREES = 8.0      # a false source within this of an image's bearing is that image


def image_bearings(azimuth, rt60):
    """The bearings (lateral angles, degrees, as the pair hears them: asin of the x component)
    of the shoebox's image sources of a source at `azimuth`, orders 1 to IMAGE_ORDER (none
    anechoic): pyroomacoustics' image-source model of the same room."""
    if rt60 == 0:
        return []
    r = pra.ShoeBox(ROOM, fs=FS, max_order=IMAGE_ORDER)
    r.add_source(position(azimuth))
    mics = np.array([[CENTRE[0] - SPACING / 2, CENTRE[0] + SPACING / 2], [CENTRE[1]] * 2, [CENTRE[2]] * 2])
    r.add_microphone_array(pra.MicrophoneArray(mics, FS))
    r.image_source_model()
    source = r.sources[0]
    bearings = []
    for k in range(source.images.shape[1]):
        if source.orders[k] == 0:
            continue
        v = source.images[:, k] - CENTRE
        bearings.append(float(np.degrees(np.arcsin(v[0] / np.linalg.norm(v)))))
    return bearings


def ghost_kind(layout, rt60):
    """`kind_of(azimuth)` for a layout [(name, azimuth)]: the nearest image bearing within
    IMAGE_DEGREES names a false source the image of a steady source (the pink noise) or of a
    talker; else "other"."""
    images = [(b, name == "pink") for name, a in layout for b in image_bearings(a, rt60)]

    def kind_of(x):
        near = [(abs(b - x), steady) for b, steady in images if abs(b - x) <= IMAGE_DEGREES]
        if not near:
            return GHOST_KINDS[2]
        return GHOST_KINDS[0] if min(near)[1] else GHOST_KINDS[1]
    return kind_of


def pyroom_multi(signals, truths, masks, names, scores):
    """SRP-PHAT / NormMUSIC asked for len(truths) sources per 0.25 s block; a source is active in
    a block when its per-sample mask (MULTI_FLOOR) covers at least half of it."""
    nfft, hop = 512, 256
    X = pra.transform.stft.analysis(signals.T, nfft, hop).transpose([2, 1, 0])
    grid = np.radians(np.arange(0, 181, 1.0))
    mics = np.array([[-SPACING / 2, SPACING / 2], [0.0, 0.0]])
    block = int(0.25 * FS / hop)
    for name in names:
        # A pair's covariance has room for one signal per bin, so the subspace methods model one
        # (num_src=len(truths) would leave NormMUSIC no noise subspace); the len(truths) highest
        # peaks of the spatial spectrum pooled over the bins are the estimates (for SRP-PHAT
        # exactly what num_src=len(truths) does).
        doa = pra.doa.algorithms[name](mics, FS, nfft, c=343.0, num_src=1, azimuth=grid)
        block_masks, estimates = [[] for _ in truths], []
        for start in range(0, X.shape[2] - block, block):
            samples = slice(start * hop, (start + block) * hop)
            on = [m[samples].mean() >= 0.5 for m in masks]
            if not any(on):
                continue
            for i, o in enumerate(on):
                block_masks[i].append(o)
            doa.num_src = 1  # locate_sources() sets it to the number of peaks it found
            doa.locate_sources(X[:, :, start:start + block], freq_range=[200.0, 4000.0])
            peaks = doa.grid.find_peaks(k=len(truths))
            estimates.append([90.0 - np.degrees(a) for a in np.atleast_1d(doa.grid.azimuth[peaks])])
        scores[name].add(truths, block_masks, estimates)


def sample_activity(dry, floor, frame=512, delay=DISTANCE / 343.0):
    """Per-sample mask: the dry source (delayed by the direct path) within `floor` of its loudest
    `frame`-sample block; the block-level counterpart of frame_truth for the 0.25 s blocks."""
    shift = int(round(delay * FS))
    d = np.concatenate([np.zeros(shift), dry])[: len(dry)]
    levels = np.array([np.mean(d[i:i + frame] ** 2) for i in range(0, len(d), frame)])
    mask = np.repeat(levels > levels.max() * floor, frame)[: len(d)]
    return mask


def multi_main():
    global CACHE, COINCIDENT
    COINCIDENT = "--coincident" in sys.argv
    if "--cache" in sys.argv:
        CACHE = sys.argv[sys.argv.index("--cache") + 1]
        os.makedirs(CACHE, exist_ok=True)
    markdown = "--markdown" in sys.argv
    if not os.path.exists(BINARY):
        subprocess.run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=ROOT, check=True)
    max_sources = int(sys.argv[sys.argv.index("--max-sources") + 1]) if "--max-sources" in sys.argv else None
    source_window = float(sys.argv[sys.argv.index("--source-window") + 1]) if "--source-window" in sys.argv else None
    detail = "--detail" in sys.argv
    snr = 20
    seconds = MULTI_SECONDS
    dry_cache = {}
    # The pyroomacoustics methods need a time difference, which a coincident pair does not have.
    methods = [] if COINCIDENT or "--no-baselines" in sys.argv else ["SRP", "NormMUSIC"]
    header = ["scene", "RT60 s",
              "SoundCompass active sources: within 10° (worst source) / median ° / false",
              "SoundCompass all listed sources: within 10° (worst source) / median ° / false",
              ] + ([] if COINCIDENT else ["SoundCompass active sources, false by kind: " + " / ".join(GHOST_KINDS)]) + [f"{m}: within 10° (worst source) / median ° / false" for m in methods]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("  ".join(header))
    for label, rt60, runs in multi_scenes():
        single = label == "1 talker"
        scores = {k: Score() for k in ["active", "listed", "confident"] + methods}
        for run, layout in enumerate(runs):
            wets, drys, truths = [], [], []
            for name, azimuth in layout:
                if name not in dry_cache:
                    dry_cache[name] = dry_source(name, seconds)
                drys.append(dry_cache[name])
                wets.append(render_static(name, dry_cache[name], azimuth, rt60))
                truths.append(float(azimuth))
            mix = np.sum(wets, axis=0)
            masks = [sample_activity(d, MULTI_FLOOR) for d in drys]
            any_on = np.any(masks, axis=0)
            power = np.mean(mix[:, any_on] ** 2)
            rng = np.random.default_rng(500 + run)
            noisy = mix + rng.standard_normal(mix.shape) * np.sqrt(power / 10 ** (snr / 10))
            records, frame_length = multi_soundcompass(noisy, max_sources, source_window)
            times = [r["time"] for r in records]
            frame_masks = [frame_truth(d, times, frame_length, floor=MULTI_FLOOR) for d in drys]
            listed = [[s["azimuth"] for s in r.get("sources", [])] for r in records]
            active = [[s["azimuth"] for s in r.get("sources", []) if s["active"]] for r in records]
            kind_of = None if COINCIDENT else ghost_kind(layout, rt60)
            scores["active"].add(truths, frame_masks, active, kind_of)
            confident = [[s["azimuth"] for s in r.get("sources", []) if s["active"] and s["confidence"] >= 0.6]
                         for r in records]
            scores["confident"].add(truths, frame_masks, confident)
            if detail:
                run_score = Score()
                run_score.add(truths, frame_masks, active)
                shares = ", ".join(f"{a:+.0f}°: {100 * h / max(1, n):.0f}%"
                                   for a, h, n in zip(truths, run_score.hits, run_score.active))
                print(f"  {label}, RT60 {rt60}: active sources within 10°: {shares}; false "
                      f"{100 * run_score.false / max(1, run_score.reported):.1f}%"
                      + (f"; ghost-free {100 * (1 - run_score.ghost_frames / max(1, run_score.single_frames)):.0f}%"
                         if single else ""), file=sys.stderr, flush=True)
            scores["listed"].add(truths, frame_masks, listed, kind_of)
            if methods:
                pyroom_multi(noisy, truths, masks, methods, scores)
        cells = [label, "anechoic" if rt60 == 0 else f"{rt60:.1f}"]
        for k in ["active", "listed"]:
            cells.append(scores[k].cells(single)[0])
        if not COINCIDENT:
            cells.append(scores["active"].kind_cell())
        for k in methods:
            cells.append(scores[k].cells(False)[0])
        print(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells), flush=True)
        if detail:
            print(f"  {label}, RT60 {rt60}: active sources with confidence >= 0.6: "
                  f"{scores['confident'].cells(single)[0]}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------------------------
# A talker beside a steady noise (--steady): issue 31, item 1.

STEADY_NOISE_AZIMUTHS = list(range(-70, 71, 20))
STEADY_OFFSETS = (40, 60, 80, 100)


def steady_layouts():
    """(noise azimuth, talker azimuth) pairs: the noise at every 20 degrees from -70 to +70, the
    talker 40-100 degrees away on either side, within +-90."""
    layouts = []
    for n in STEADY_NOISE_AZIMUTHS:
        for d in STEADY_OFFSETS:
            for t in (n - d, n + d):
                if abs(t) <= 90:
                    layouts.append((n, t))
    return layouts


def steady_main():
    """Talker + steady pink noise: per (RT60, noise level) over steady_layouts(), the talker's and
    the noise's share of their active frames with a listed source within 10 degrees (pooled and
    the worst layout), the false share and the layouts in which each is listed at all; SRP-PHAT
    and NormMUSIC given the true count (2), scored the same way per 0.25 s block."""
    global CACHE
    if "--cache" in sys.argv:
        CACHE = sys.argv[sys.argv.index("--cache") + 1]
        os.makedirs(CACHE, exist_ok=True)
    markdown = "--markdown" in sys.argv
    detail = "--detail" in sys.argv
    quick = "--quick" in sys.argv
    seconds = MULTI_SECONDS
    snr = 20
    layouts = steady_layouts()
    if quick:
        layouts = layouts[::5]
    conditions = [(0.3, 0), (0.3, -5), (0.6, 0), (0.6, -5)]
    if "--only" in sys.argv:
        rt, level = sys.argv[sys.argv.index("--only") + 1].split(":")
        conditions = [(float(rt), int(level))]
    # --no-baselines: SoundCompass only (for iterating; the table's SRP/NormMUSIC columns are empty).
    methods = [] if "--no-baselines" in sys.argv else ["SRP", "NormMUSIC"]
    talkers = [talker(0, seconds), talker(1, seconds)]
    noise = pink(seconds, 31)
    header = ["RT60 s", "noise dB re talker",
              "SoundCompass talker within 10° (worst layout) / noise within 10° (worst) / false / layouts listing talker, noise"] + \
        [f"{m}: talker (worst) / noise (worst) / false" for m in methods]
    if markdown:
        print("| " + " | ".join(header) + " |")
        print("|" + "---|" * len(header))
    else:
        print("  ".join(header))
    for rt60, level in conditions:
        totals = {k: np.zeros(5) for k in ["ours"] + methods}  # talker hits, frames, noise hits, frames, false
        reported = {k: 0 for k in ["ours"] + methods}
        worst = {k: [1.0, 1.0] for k in ["ours"] + methods}
        listed_talker, listed_noise = 0, 0
        for index, (n_az, t_az) in enumerate(layouts):
            which = index % 2
            dry_t = talkers[which]
            dry_n = noise * 10 ** (level / 20)
            wet_t = render_static(f"talker{which}", dry_t, t_az, rt60)
            wet_n = render_static("pink", noise, n_az, rt60) * 10 ** (level / 20)
            mix = wet_t + wet_n
            masks = [sample_activity(dry_t, MULTI_FLOOR), sample_activity(dry_n, MULTI_FLOOR)]
            power = np.mean(mix[:, np.any(masks, axis=0)] ** 2)
            rng = np.random.default_rng(700 + index)
            noisy = mix + rng.standard_normal(mix.shape) * np.sqrt(power / 10 ** (snr / 10))
            records, frame_length = multi_soundcompass(noisy, None)
            times = [r["time"] for r in records]
            frame_masks = [frame_truth(dry_t, times, frame_length, floor=MULTI_FLOOR),
                           frame_truth(dry_n, times, frame_length, floor=MULTI_FLOOR)]
            listed = [[s["azimuth"] for s in r.get("sources", [])] for r in records]
            scored = {"ours": Score()}
            scored["ours"].add([float(t_az), float(n_az)], frame_masks, listed)
            hit_any = [any(m and est and min(abs(x - a) for x in est) <= HIT_DEGREES for m, est in zip(mask, listed))
                       for a, mask in zip((t_az, n_az), frame_masks)]
            listed_talker += hit_any[0]
            listed_noise += hit_any[1]
            block_scores = {m: Score() for m in methods}
            if methods:
                pyroom_multi(noisy, [float(t_az), float(n_az)], masks, methods, block_scores)
            scored.update(block_scores)
            for k, sc in scored.items():
                t = np.array([sc.hits[0], sc.active[0], sc.hits[1], sc.active[1], sc.false])
                totals[k] += t
                reported[k] += sc.reported
                worst[k][0] = min(worst[k][0], sc.hits[0] / max(1, sc.active[0]))
                worst[k][1] = min(worst[k][1], sc.hits[1] / max(1, sc.active[1]))
            if detail:
                sc = scored["ours"]
                print(f"  RT60 {rt60} noise {level:+d} dB: noise {n_az:+d}°, talker {t_az:+d}° (talker{which}): "
                      f"talker {100 * sc.hits[0] / max(1, sc.active[0]):.0f}%, noise {100 * sc.hits[1] / max(1, sc.active[1]):.0f}%, "
                      f"false {100 * sc.false / max(1, sc.reported):.1f}%" + (f"; SRP talker "
                      f"{100 * block_scores['SRP'].hits[0] / max(1, block_scores['SRP'].active[0]):.0f}%" if methods else ""),
                      file=sys.stderr, flush=True)
        cells = ["anechoic" if rt60 == 0 else f"{rt60:.1f}", f"{level:+d}"]
        for k in ["ours"] + methods:
            t = totals[k]
            text = (f"{100 * t[0] / max(1, t[1]):3.0f}% ({100 * worst[k][0]:3.0f}%) / "
                    f"{100 * t[2] / max(1, t[3]):3.0f}% ({100 * worst[k][1]:3.0f}%) / {100 * t[4] / max(1, reported[k]):3.0f}%")
            if k == "ours":
                text += f" / {listed_talker}, {listed_noise} of {len(layouts)}"
            cells.append(text)
        print(("| " + " | ".join(cells) + " |") if markdown else "  ".join(cells), flush=True)


# ---------------------------------------------------------------------------------------------
# A talker in a diffuse noise field, per azimuth (--diffuse-field): issue 46, item 2.

def sinc_diffuse(n, seed, white=False):
    """Two channels of diffuse noise as a spaced pair hears it (Habets and Gannot's mixing:
    L = N1, R = G*N1 + sqrt(1 - G^2)*N2 per frequency, G = sin(2 pi f d/c)/(2 pi f d/c)), pink
    unless `white`, RMS 1 per channel."""
    rng = np.random.default_rng(seed)
    f = np.fft.rfftfreq(n, 1 / FS)
    n1, n2 = np.fft.rfft(rng.standard_normal(n)), np.fft.rfft(rng.standard_normal(n))
    g = np.sinc(2 * f * SPACING / 343.0)  # np.sinc(x) = sin(pi x)/(pi x)
    x1, x2 = n1, g * n1 + np.sqrt(np.maximum(0, 1 - g * g)) * n2
    if not white:
        x1, x2 = pink_shaped(x1, n), pink_shaped(x2, n)
    x = np.vstack([np.fft.irfft(x1, n), np.fft.irfft(x2, n)])
    return x / np.sqrt(np.mean(x ** 2, axis=1, keepdims=True))


def diffuse_field_main():
    """Per azimuth (-60 ... 60 in 20 degree steps), the share of the talker's audible frames
    (frame_truth) whose tracked `azimuth` is within 10 degrees, and its median error: the speech
    talker in the RT60 0.3 s room, in diffuse noise at 0 dB SNR (against the talker's power on
    its audible samples, as add_diffuse), sensor noise 30 dB below. Fields: pink and white noise
    with sinc coherence (sinc_diffuse, seeds 300 + azimuth index), and the wall-source noise of
    the "diffuse" rows with 12 and 6 sources (seeds 500-504: fewer, nearer sources are closer to
    several steady point sources than to a diffuse field).

    A second line per field says why, per azimuth: the median signed error of the tracked
    `azimuth` (positive: pulled towards 0 degrees), the share of the audible frames that move the
    broadband tracker (`confidence` >= 0.2, the tracker's threshold; the others only coast), and
    the share with an active listed source within 10 degrees (the `sources` list)."""
    seconds, rt60 = 8.0, 0.3
    dry = speech(seconds)
    active = activity(dry)
    azimuths = [-60, -40, -20, 0, 20, 40, 60]
    def walls(count):
        return lambda k: [diffuse_noise(seconds, rt60, seed, count) for seed in range(500, 505)]
    fields = [("sinc pink", lambda k: [sinc_diffuse(len(dry), 300 + k)]),
              ("sinc white", lambda k: [sinc_diffuse(len(dry), 300 + k, white=True)]),
              ("12 wall sources", walls(12)), ("6 wall sources", walls(6))]
    print("field  " + "  ".join(f"{a:+d}: <=10 / median" for a in azimuths) + "  worst <=10  pooled <=10")
    print("   why: pull deg / frames carrying a bearing / a listed source within 10 deg")
    for name, noises in fields:
        cells, shares, pooled, why = [], [], [], []
        for k, az in enumerate(azimuths):
            wet = cached(("static", False, seconds, rt60, az, pra.__version__), lambda: render(dry, lambda t: float(az), rt60))
            errors, records = [], []
            for noise in noises(k):
                noisy = add_diffuse(wet, active, noise, 0, seed=100 + k)
                errors += soundcompass(noisy, lambda t, a=az: float(a), dry, wet, audible_records=records)[0]
            e = np.array(errors)
            shares.append(np.mean(e <= 10))
            pooled += errors
            cells.append(f"{100 * np.mean(e <= 10):3.0f}% / {np.median(e):4.1f}")
            pull = np.median([(az - r["azimuth"]) * np.sign(az) for r in records])
            carrying = np.mean([r["confidence"] >= 0.2 for r in records])
            listed = np.mean([any(s["active"] and abs(s["azimuth"] - az) <= 10 for s in r.get("sources", []))
                              for r in records])
            why.append(f"{pull:+5.1f} / {100 * carrying:3.0f}% / {100 * listed:3.0f}%")
        print(f"{name}  " + "  ".join(cells) + f"  {100 * min(shares):3.0f}%  {100 * np.mean(np.array(pooled) <= 10):3.0f}%", flush=True)
        print(f"   why  " + "  ".join(why), flush=True)


if __name__ == "__main__":
    if "--rate" in sys.argv:
        FS = int(sys.argv[sys.argv.index("--rate") + 1])
        if not 8000 <= FS <= 192000:
            sys.exit(f"evaluate.py: --rate {FS} is outside 8000-192000 Hz")
        if "--multi" in sys.argv or "--steady" in sys.argv:
            sys.exit("evaluate.py: --rate is for the main table and --diffuse-field only")
    if "--spacing" in sys.argv:
        SPACING = float(sys.argv[sys.argv.index("--spacing") + 1])
        if not 0.01 <= SPACING <= 1.0:
            sys.exit(f"evaluate.py: --spacing {SPACING} is outside 0.01-1 m")
        if "--multi" in sys.argv or "--steady" in sys.argv or "--coincident" in sys.argv:
            sys.exit("evaluate.py: --spacing is for the main table and --diffuse-field only")
    if "--diffuse-field" in sys.argv:
        if "--cache" in sys.argv:
            CACHE = sys.argv[sys.argv.index("--cache") + 1]
            os.makedirs(CACHE, exist_ok=True)
        diffuse_field_main()
    elif "--steady" in sys.argv:
        steady_main()
    elif "--multi" in sys.argv:
        multi_main()
    else:
        main()
