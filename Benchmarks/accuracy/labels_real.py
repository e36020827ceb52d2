#!/usr/bin/env python3
"""What each source is, on real recordings: every file of the pinned set (labels_real_data.py:
real recordings of 13 everyday classes that install offline from Debian packages) placed in a
room (pyroomacoustics, 6 x 5 x 3 m, RT60 0.3 s, a 15 cm pair at the centre, the source 1.5 m
away at a seeded azimuth in [-70, 70] degrees), (a) alone and (b) beside a talker (another real
recording, at least 40 degrees away, at the source's level), and analysed with `--classify`.

An evaluation that prints figures, not a test. Needs pyroomacoustics, scipy, ffmpeg (to decode
Ogg/MP3/FLAC), the YAMNet model (scripts/fetch-model), the Debian packages of the set (--fetch)
and the release build of soundcompass ($SOUNDCOMPASS_BINARY).

Usage: Benchmarks/accuracy/labels_real.py [--fetch] [--alerts] [--seed N] [--cache DIR] [--jobs N]

--fetch   apt-get install the set's packages (with sudo when not root; a no-op when installed)
          and check each file's sha256. Without it a missing file is reported and skipped.
--alerts  also run every scene with --alert siren,alarm,horn: false alert events on the other
          classes (per 10 minutes of audio), and for alarm, siren and car horn whether an alert
          came within 1.5 s of the onset with a bearing within 10 degrees.
--cache   keep the rendered scenes in DIR (reused when present).
--jobs    worker processes (default: one per CPU).

Scenes: the recording is mixed to mono, resampled to 48 kHz, trimmed of leading and trailing
silence and looped (at least 0.5 s between starts, so a single bark becomes barking) or cut to
5-9 s of activity, starting at 1 s. The talker (codec2 speech_orig_16k; linphone hello16000
when that file is the one evaluated) speaks from 0 s to the end. Levels are RMS over the
active samples (10 ms frames within 30 dB of the loudest). White sensor noise 40 dB below the
rendered source; each rendered pair is scaled to a peak of 0.9 as in classify.py.

What is measured, for each source over its active time (from 1 s to the end):
  SoundCompass: the records in which a listed active source lies within 15 degrees of the
    source's true azimuth are the frames it is located in ("located": their share of the
    active records). It is labelled when one of its class's acceptable names
    (labels_real_data.ACCEPTABLE) is among that source's label + next_labels in at least half
    of those records.
  Reference (no separation): YAMNet (yamnet_numpy.py) on the left microphone of the same
    scene, patches of 0.96 s every 0.48 s; labelled when an acceptable name is in the top
    three of at least half of the patches.
  "dry ref": the same reference on the dry source (no room, peak 0.9): whether the recording
    itself is one YAMNet names, to tell a file unfit for the test from a room or a method
    that fails.
The talker of (b) is scored the same way, over the same span, and reported apart. The "strict"
totals count only a class's specific names (without the broad ones of labels_real_data.BROAD:
Animal for a dog, Vehicle for a horn, Alarm for a siren, ...). Also counted over that span: the
records with a source heard that list an active source more than 15 degrees from every real
one (a reflection or another ghost), and those in which such a source carries a label.
"""
import collections
import hashlib
import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # one BLAS thread per worker process
os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from scipy.io import wavfile  # noqa: E402
from scipy.signal import resample_poly  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import classify as C  # noqa: E402  (the room, the pair and render())
import labels_real_data as D  # noqa: E402

BINARY = C.BINARY
FS = C.FS
RT60 = 0.3
ONSET = 1.0                       # the source starts at 1 s
ACTIVE = (5.0, 9.0)               # seconds of activity after the onset
PERIOD = 0.5                      # shortest time between the starts of a looped clip
AZIMUTHS = 70.0                   # sources in [-70, 70] degrees
TALKER_APART = 40.0               # the talker at least this far from the source
NOISE_DB = 40.0                   # sensor noise below the rendered source
MATCH = 15.0                      # a record's source within this of the truth locates it
ALERT_NAMES = "siren,alarm,horn"
ALERT_LATENCY = 1.5
BANNER_HOLD = 3.0                 # the page holds an alert banner this long (CompassPage.swift)
ALERT_BEARING = 10.0
SPEECH = set(D.ACCEPTABLE["speech"])


# --- the set -------------------------------------------------------------------------------

def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def fetch():
    """apt-get install the set's packages (and ffmpeg when missing); idempotent."""
    packages = sorted({row[1] for row in D.FILES} | ({"ffmpeg"} if shutil.which("ffmpeg") is None else set()))
    sudo = [] if os.geteuid() == 0 else ["sudo"]
    command = sudo + ["apt-get", "install", "-y", "--no-install-recommends"] + packages
    print("$ " + " ".join(command), flush=True)
    if subprocess.run(command, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(sudo + ["apt-get", "update"], check=True, stdout=subprocess.DEVNULL)
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)


def available():
    """The rows of the set whose file is installed with its pinned sha256; one line per other."""
    rows = []
    for row in D.FILES:
        cls, package, path, digest = row[:4]
        if not os.path.exists(path):
            print(f"missing: {path} (package {package}; --fetch installs it)")
        elif sha256(path) != digest:
            print(f"sha256 differs, skipped: {path} (package {package})")
        else:
            rows.append(row)
    return rows


# --- signals -------------------------------------------------------------------------------

def decode(path):
    """The file mixed to mono at FS (ffmpeg decodes at the file's own rate; resample_poly)."""
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                            "stream=sample_rate,channels", "-of", "csv=p=0", path],
                           check=True, capture_output=True, text=True).stdout.split(",")
    rate, channels = int(probe[0]), int(probe[1])
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "f32le", "-acodec", "pcm_f32le", "-"],
                         check=True, capture_output=True).stdout
    x = np.frombuffer(raw, np.float32).astype(np.float64).reshape(-1, channels).mean(axis=1)
    g = np.gcd(FS, rate)
    return resample_poly(x, FS // g, rate // g) if rate != FS else x


def frame_powers(x, frame=FS // 100):
    n = len(x) // frame
    return np.mean(x[: n * frame].reshape(n, frame) ** 2, axis=1)


def trimmed(x, floor_db=40.0):
    """Without the leading and trailing 10 ms frames quieter than the loudest by floor_db."""
    p = frame_powers(x)
    loud = np.flatnonzero(p >= p.max() * 10 ** (-floor_db / 10))
    return x[loud[0] * (FS // 100): (loud[-1] + 1) * (FS // 100)]


def active_rms(x, floor_db=30.0):
    """RMS over the active samples: the 10 ms frames within floor_db of the loudest."""
    p = frame_powers(x)
    return float(np.sqrt(np.mean(p[p >= p.max() * 10 ** (-floor_db / 10)])))


def looped(clip, n):
    """clip repeated (starts at least PERIOD apart, 5 ms fades at its ends) or cut to n samples."""
    if len(clip) >= n:
        return clip[:n].copy()
    fade = np.ones(len(clip))
    ramp = min(FS // 200, len(clip) // 4)
    fade[:ramp] = np.linspace(0, 1, ramp)
    fade[len(clip) - ramp:] = np.linspace(1, 0, ramp)
    clip = clip * fade
    period = max(len(clip), int(PERIOD * FS))
    out = np.zeros(n + len(clip))
    for start in range(0, n, period):
        out[start: start + len(clip)] += clip
    return out[:n]


def scene_signals(path, talker_path):
    """The source (silent before ONSET) and the talker (from 0 s) at the source's level."""
    clip = trimmed(decode(path))
    active = int(np.clip(len(clip) / FS, *ACTIVE) * FS)
    n = int(ONSET * FS) + active
    source = np.zeros(n)
    source[int(ONSET * FS):] = looped(clip, active)
    talker = looped(trimmed(decode(talker_path)), n)
    talker *= active_rms(source) / active_rms(talker)
    return source, talker


def azimuths(rng):
    """The source's azimuth and the talker's, at least TALKER_APART away, both in +-AZIMUTHS."""
    source = rng.uniform(-AZIMUTHS, AZIMUTHS)
    while True:
        talker = rng.uniform(-AZIMUTHS, AZIMUTHS)
        if abs(talker - source) >= TALKER_APART:
            return source, talker


def render_scenes(source, talker, rng, az, talker_az):
    """The rendered pairs (alone, beside the talker), sensor noise added, peak 0.9."""
    wet = C.render([(source, az)], RT60)
    wet_talker = C.render([(talker, talker_az)], RT60)
    noise = rng.standard_normal(wet.shape) * active_rms(wet[0]) * 10 ** (-NOISE_DB / 20)
    scenes = []
    for pair in (wet + noise, wet + wet_talker + noise):
        scenes.append(pair / np.max(np.abs(pair)) * 0.9)
    return scenes


# --- scoring -------------------------------------------------------------------------------

def soundcompass(path, alert=False):
    """The records of `analyze --classify` on path (waits for a binary being rebuilt)."""
    command = [BINARY, "analyze", path, "--classify", "--format", "jsonl", "-q", "--spacing", str(C.SPACING)]
    if alert:
        command += ["--alert", ALERT_NAMES]
    for _ in range(20):
        if os.path.exists(BINARY):
            run = subprocess.run(command, capture_output=True, text=True)
            if run.returncode == 0:
                return [json.loads(line) for line in run.stdout.splitlines()]
            if os.path.exists(BINARY):
                raise RuntimeError(f"{' '.join(command)}: {run.stderr.strip()}")
        time.sleep(30)
    raise RuntimeError(f"no binary at {BINARY}")


def score_sc(records, azimuth, acceptable, start, end):
    """Located share, labelled share of the located records, and the located source's labels."""
    span = [r for r in records if start <= r["time"] < end]
    located = hits = 0
    tops = collections.Counter()
    for r in span:
        near = [s for s in r.get("sources") or [] if s.get("active") and abs(s["azimuth"] - azimuth) <= MATCH]
        if not near:
            continue
        located += 1
        names = {n for s in near for n in [s.get("label")] + (s.get("next_labels") or []) if n}
        hits += bool(names & acceptable)
        nearest = min(near, key=lambda s: abs(s["azimuth"] - azimuth))
        tops[nearest.get("label") or "(none)"] += 1
    return {"located": located / len(span) if span else 0.0,
            "share": hits / located if located else 0.0,
            "labelled": located > 0 and hits >= 0.5 * located,
            "top": tops.most_common(1)[0][0] if tops else "(not located)"}


def listed_elsewhere(records, truths, start, end):
    """Records from `start` with a source heard, those also listing an active source more than
    MATCH from every truth (a reflection or another ghost), and those in which such a source
    carries a label."""
    heard = ghost = labelled = 0
    for r in records:
        if not start <= r["time"] < end:
            continue
        active = [s for s in r.get("sources") or [] if s.get("active")]
        if not active:
            continue
        heard += 1
        away = [s for s in active if min(abs(s["azimuth"] - t) for t in truths) > MATCH]
        ghost += bool(away)
        labelled += any(s.get("label") for s in away)
    return {"heard": heard, "ghost": ghost, "labelled": labelled}


def reference_patches(left, start, end):
    """YAMNet's top three for each 0.96 s patch (0.48 s hop) of left[start:end], at 16 kHz."""
    import yamnet_numpy as Y  # loads the weights; imported in the workers only
    x = resample_poly(left[int(start * FS): int(end * FS)], 1, FS // 16000)
    patches = Y.patches_of(Y.logmel_from_mag(np.abs(Y.stft(x))))
    return [[name for name, _ in Y.top(lg)] for lg in Y.logits(patches)] if len(patches) else []


def score_reference(tops, acceptable):
    hits = sum(bool(set(t) & acceptable) for t in tops)
    top1 = collections.Counter(t[0] for t in tops).most_common(1)
    return {"share": hits / len(tops) if tops else 0.0, "labelled": bool(tops) and hits >= 0.5 * len(tops),
            "top": top1[0][0] if top1 else "(no patch)"}


def alert_events(records, start=0.0):
    """Alert events from `start`: records with an alert whose previous record had none."""
    events, before = [], None
    for r in records:
        if r.get("alert") and not before and r["time"] >= start:
            events.append(r)
        before = r.get("alert")
    return events


def banners(records):
    """How many alert banners the `--serve` page raises for these records: it holds a banner
    BANNER_HOLD seconds after the last alerting record, so an alert event within that time of
    the previous alerting record raises no new one (nor a new vibration or spoken alert)."""
    count, last = 0, None
    for r in records:
        if r.get("alert"):
            if last is None or r["time"] - last > BANNER_HOLD:
                count += 1
            last = r["time"]
    return count


def onset_alert(records, azimuth):
    """The first alert within ALERT_LATENCY of the onset with a bearing within ALERT_BEARING."""
    for r in records:
        a = r.get("alert")
        if a and ONSET <= r["time"] <= ONSET + ALERT_LATENCY and abs(a["azimuth"] - azimuth) <= ALERT_BEARING:
            return {"latency": r["time"] - ONSET, "error": a["azimuth"] - azimuth, "label": a["label"]}
    return None


# --- one file ------------------------------------------------------------------------------

def scene_files(row, seed, directory, signals=None):
    """The azimuths of the source of `row` and of its talker at `seed`, and the paths of its
    "alone" and "beside" scenes in `directory`, rendered there when missing (from `signals`, the
    source and the talker, decoded here when not given)."""
    path, digest = row[2], row[3]
    rng = np.random.default_rng([seed, zlib.crc32(path.encode())])
    az, talker_az = azimuths(rng)
    stem = f"{os.path.splitext(os.path.basename(path))[0]}-{digest[:8]}-seed{seed}"
    paths = [os.path.join(directory, f"{stem}-{kind}.wav") for kind in ("alone", "beside")]
    if not all(os.path.exists(p) for p in paths):
        source, talker = signals or scene_signals(path, D.TALKER_ALTERNATE if path == D.TALKER else D.TALKER)
        for p, scene in zip(paths, render_scenes(source, talker, rng, az, talker_az)):
            wavfile.write(p, FS, scene.T.astype(np.float32))
    return az, talker_az, paths


def evaluate(task):
    """Both scenes of one file: SoundCompass and the reference, and the alert runs if asked."""
    row, seed, cache, alerts = task
    cls, package, path = row[:3]
    tmp = None if cache else tempfile.mkdtemp()
    source, talker = scene_signals(path, D.TALKER_ALTERNATE if path == D.TALKER else D.TALKER)
    az, talker_az, paths = scene_files(row, seed, cache or tmp, (source, talker))
    acceptable, strict = set(D.ACCEPTABLE[cls]), set(D.STRICT[cls])
    dry = source / np.max(np.abs(source)) * 0.9
    result = {"class": cls, "path": path, "package": package, "azimuth": az, "talker_azimuth": talker_az,
              "dry": score_reference(reference_patches(dry, ONSET, len(dry) / FS), acceptable), "scenes": {}}
    for kind, p in zip(("alone", "beside"), paths):
        _, pair = wavfile.read(p)
        end = len(pair) / FS
        records = soundcompass(p)
        tops = reference_patches(pair[:, 0].astype(np.float64), ONSET, end)
        scene = {"seconds": end,
                 "sc": score_sc(records, az, acceptable, ONSET, end),
                 "ref": score_reference(tops, acceptable),
                 "sc_strict": score_sc(records, az, strict, ONSET, end)["labelled"],
                 "elsewhere": listed_elsewhere(records, [az] if kind == "alone" else [az, talker_az], ONSET, end),
                 "ref_strict": score_reference(tops, strict)["labelled"]}
        if kind == "beside":
            scene["talker_sc"] = score_sc(records, talker_az, SPEECH, ONSET, end)
            scene["talker_ref"] = score_reference(tops, SPEECH)
        if alerts:
            alerted = soundcompass(p, alert=True)
            scene["events"] = [(r["time"], r["alert"]["label"], r["alert"]["azimuth"]) for r in alert_events(alerted)]
            scene["banners"] = banners(alerted)
            scene["onset_alert"] = onset_alert(alerted, az)
        result["scenes"][kind] = scene
    if tmp:
        shutil.rmtree(tmp)
    return result


# --- printing ------------------------------------------------------------------------------

def pct(k, n):
    return f"{k}/{n} ({100.0 * k / n:.0f} %)" if n else "-"


def print_table(results):
    print("\nLabelled sources per class (SoundCompass / reference: YAMNet on the left channel, unseparated)")
    print(f"{'class':<11} {'files':>5}  {'alone SC':>9} {'alone ref':>9}  {'beside SC':>9} {'beside ref':>10}"
          f"  {'located alone':>13} {'beside':>6}")
    rows = collections.defaultdict(list)
    for r in results:
        rows[r["class"]].append(r)
    for cls in D.CLASSES:
        rs = rows.get(cls, [])
        if not rs:
            print(f"{cls:<11} {0:>5}  (no files)")
            continue
        cells = [sum(r["scenes"][k][w]["labelled"] for r in rs) for k, w in
                 (("alone", "sc"), ("alone", "ref"), ("beside", "sc"), ("beside", "ref"))]
        located = [np.mean([r["scenes"][k]["sc"]["located"] for r in rs]) for k in ("alone", "beside")]
        print(f"{cls:<11} {len(rs):>5}  " + "  ".join(f"{c:>4}/{len(rs):<3}" for c in cells[:2]) + "  "
              + "  ".join(f"{c:>4}/{len(rs):<3}" for c in cells[2:])
              + f"   {100 * located[0]:>9.0f} %  {100 * located[1]:>4.0f} %")
    n = len(results)
    for kind, name in (("alone", "alone"), ("beside", "beside a talker")):
        sc = sum(r["scenes"][kind]["sc"]["labelled"] for r in results)
        ref = sum(r["scenes"][kind]["ref"]["labelled"] for r in results)
        located = np.mean([r["scenes"][kind]["sc"]["located"] for r in results])
        print(f"all, {name}: SoundCompass {pct(sc, n)}, reference {pct(ref, n)}; "
              f"located {100 * located:.0f} % of the active time on average")
        sc = sum(r["scenes"][kind]["sc_strict"] for r in results)
        ref = sum(r["scenes"][kind]["ref_strict"] for r in results)
        print(f"     strict names (without labels_real_data.BROAD): SoundCompass {pct(sc, n)}, reference {pct(ref, n)}")
    for kind, name in (("alone", "alone"), ("beside", "beside a talker")):
        e = [r["scenes"][kind]["elsewhere"] for r in results]
        heard = sum(x["heard"] for x in e)
        print(f"listed more than {MATCH:.0f} deg from every source, {name}: in {pct(sum(x['ghost'] for x in e), heard)} "
              f"of the records with a source heard; labelled there in {pct(sum(x['labelled'] for x in e), heard)}")
    dry = sum(r["dry"]["labelled"] for r in results)
    print(f"the recordings themselves (the reference on the dry source, no room): {pct(dry, n)}")
    sc = sum(r["scenes"]["beside"]["talker_sc"]["labelled"] for r in results)
    ref = sum(r["scenes"]["beside"]["talker_ref"]["labelled"] for r in results)
    located = np.mean([r["scenes"]["beside"]["talker_sc"]["located"] for r in results])
    print(f"the talker of the beside scenes (speech names, from 1 s): SoundCompass {pct(sc, n)}, "
          f"reference {pct(ref, n)}; located {100 * located:.0f} %")


def print_files(results):
    print("\nPer file, at its azimuth (SC: labelled?, share of the located records naming the class, located share of"
          " the active time, the located source's most frequent label; ref: labelled?, share of patches, most"
          " frequent top label)")
    for r in results:
        a, b = r["scenes"]["alone"], r["scenes"]["beside"]
        name = display_name(r, results)

        def cell(s, w):
            mark = "yes" if s[w]["labelled"] else "no "
            extra = f" {100 * s[w]['share']:.0f}%"
            loc = f" loc {100 * s[w]['located']:.0f}%" if w == "sc" or w == "talker_sc" else ""
            return f"{mark}{extra}{loc} {s[w]['top']!r}"
        print(f"{r['class']:<10} {name:<32} {r['azimuth']:+4.0f}  alone SC {cell(a, 'sc')} | ref {cell(a, 'ref')}"
              f" | dry ref {cell(r, 'dry')}")
        print(f"{'':<10} {'':<32} {'':>4}  beside (talker {r['talker_azimuth']:+.0f}) SC {cell(b, 'sc')} | "
              f"ref {cell(b, 'ref')} | talker SC {cell(b, 'talker_sc')}")


def display_name(r, results):
    """The file's name, with its package when another file of the set has the same name."""
    name = os.path.basename(r["path"])
    same = sum(os.path.basename(q["path"]) == name for q in results)
    return f"{r['package']}:{name}" if same > 1 else name


def print_alerts(results):
    print(f"\nAlerts (--alert {ALERT_NAMES})")
    for kind, name in (("alone", "alone"), ("beside", "beside a talker")):
        quiet = [r for r in results if r["class"] not in D.ALERT_CLASSES]
        seconds = sum(r["scenes"][kind]["seconds"] for r in quiet)
        events = [(r, e) for r in quiet for e in r["scenes"][kind]["events"]]
        by_class = collections.Counter(r["class"] for r, _ in events)
        by_label = collections.Counter(e[1] for _, e in events)
        at_talker = sum(kind == "beside" and abs(e[2] - r["talker_azimuth"]) <= MATCH for r, e in events)
        at_source = sum(abs(e[2] - r["azimuth"]) <= MATCH for r, e in events)
        raised = sum(r["scenes"][kind]["banners"] for r in quiet)
        print(f"false alert events, other classes {name}: {len(events)} in {seconds / 60:.1f} min = "
              f"{600 * len(events) / seconds:.1f} per 10 min ({raised} banners on the page = "
              f"{600 * raised / seconds:.1f} per 10 min); raised on: "
              + (", ".join(f"{c} {k}" for c, k in by_class.most_common()) or "none")
              + (f"; as: {', '.join(f'{c} {k}' for c, k in by_label.most_common())}" if events else "")
              + (f"; at the source {at_source}" + (f", at the talker {at_talker}" if kind == "beside" else "")
                 if events else ""))
        for r, e in events:
            print(f"    {r['class']:<10} {display_name(r, results):<32} t={e[0]:.2f} s {e[1]} at {e[2]:+.0f}"
                  f" (source {r['azimuth']:+.0f}" + (f", talker {r['talker_azimuth']:+.0f})" if kind == "beside" else ")"))
    print(f"onset alerts (within {ALERT_LATENCY} s of the onset, bearing within {ALERT_BEARING:.0f} deg):")
    for kind in ("alone", "beside"):
        hits = [r for r in results if r["class"] in D.ALERT_CLASSES]
        found = sum(r["scenes"][kind]["onset_alert"] is not None for r in hits)
        print(f"  {kind}: {pct(found, len(hits))}")
        for r in hits:
            s = r["scenes"][kind]
            o = s["onset_alert"]
            first = f"; first alert at {s['events'][0][0]:.2f} s, {s['events'][0][2] - r['azimuth']:+.0f} deg" \
                if s["events"] else "; no alert at all"
            got = (f"after {o['latency']:.2f} s, bearing error {o['error']:+.1f} deg ({o['label']})" if o
                   else "none" + first)
            print(f"    {r['class']:<10} {display_name(r, results):<32} {r['azimuth']:+4.0f}: {got};"
                  f" events {len(s['events'])}")


def main():
    args = sys.argv[1:]
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 44
    cache = args[args.index("--cache") + 1] if "--cache" in args else None
    jobs = int(args[args.index("--jobs") + 1]) if "--jobs" in args else (os.cpu_count() or 2)
    alerts = "--alerts" in args
    started = time.time()
    if "--fetch" in args:
        fetch()
    if cache:
        os.makedirs(cache, exist_ok=True)
    rows = available()
    if not any(row[2] == D.TALKER for row in rows) or not any(row[2] == D.TALKER_ALTERNATE for row in rows):
        sys.exit(f"the talkers {D.TALKER} and {D.TALKER_ALTERNATE} are needed (--fetch)")
    print(f"{len(rows)} real recordings, {len({r[0] for r in rows})} classes; room {'x'.join(f'{v:g}' for v in C.ROOM)} m, "
          f"RT60 {RT60} s, {C.SPACING} m pair, source {C.DISTANCE} m at a seeded azimuth in +-{AZIMUTHS:.0f} deg; "
          f"seed {seed}; {BINARY}", flush=True)
    tasks = [(row, seed, cache, alerts) for row in rows]
    with multiprocessing.Pool(jobs) as pool:
        results = pool.map(evaluate, tasks, chunksize=1)
    print_table(results)
    print_files(results)
    if alerts:
        print_alerts(results)
    audio = sum(s["seconds"] for r in results for s in r["scenes"].values())
    print(f"\nwall time {time.time() - started:.0f} s for {len(results)} files, {2 * len(results)} scenes "
          f"({audio / 60:.1f} min of audio)")


if __name__ == "__main__":
    main()
