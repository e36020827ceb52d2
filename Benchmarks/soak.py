#!/usr/bin/env python3
"""Soak: memory, descriptors and records over long runs (a benchmark, not a test).

1. live: a 60 s scene repeated to LIVE_HOURS (default 2 h) of raw float PCM, replayed as a
   capture device by ALSA's `file` plugin, unpaced (`live --device replay --format jsonl`).
   Samples VmRSS, VmHWM and the open descriptors (/proc/PID) as it runs; counts the records
   written (stdout lines) against the frames of the summary; prints the summary's overruns and
   latency figures (p50, p99, max per period).
2. analyze and trace on a DAY_HOURS (default 24 h) stream: the same scene repeated into
   `analyze -` / `trace - --plot` as raw PCM on a pipe (nothing that size is written to disk).
   Reports the peak RSS (GNU time's %M), VmRSS samples along the stream, wall time,
   and for trace the SVG's size and the segments.

The release binary is built first (under /tmp/swift.lock, when flock exists). The 2-hour
replay file (2.8 GB) lives in a temporary directory that is removed at the end.

Usage: Benchmarks/soak.py [--live-hours H] [--day-hours H] [--skip-live] [--skip-day]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")
RATE, CHANNELS, BYTES = 48000, 2, 4  # raw f32le stereo
SCENE_SECONDS = 60


def proc_status(pid):
    """VmRSS and VmHWM in MB, and the number of open descriptors; None once the process is gone."""
    try:
        with open(f"/proc/{pid}/status") as f:
            text = f.read()
        fds = len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return None
    def field(name):
        m = re.search(rf"^{name}:\s+(\d+) kB", text, re.M)
        return int(m.group(1)) / 1024 if m else float("nan")
    return field("VmRSS"), field("VmHWM"), fds


def timed(command, peak_file):
    """`command` under GNU time, which writes the peak RSS (kB) to `peak_file`. (A child's own
    getrusage is no good here: a process forked from this Python counts Python's pages.)"""
    return ["/usr/bin/time", "-f", "%M", "-o", peak_file] + command


def peak_mb(peak_file):
    with open(peak_file) as f:
        return int(f.read().split()[-1]) / 1024


def tool_pid(wrapper_pid):
    """The PID of the tool GNU time runs (its only child), or the wrapper's while it starts."""
    for _ in range(100):
        try:
            with open(f"/proc/{wrapper_pid}/task/{wrapper_pid}/children") as f:
                children = f.read().split()
            if children:
                return int(children[0])
        except FileNotFoundError:
            return wrapper_pid
        time.sleep(0.01)
    return wrapper_pid


def build():
    command = ["swift", "build", "-c", "release", "--product", "soundcompass"]
    if shutil.which("flock"):
        command = ["flock", "/tmp/swift.lock"] + command
    print("building release ...", file=sys.stderr)
    subprocess.run(command, cwd=ROOT, check=True, stdout=sys.stderr)


def make_scene(work):
    scene = os.path.join(work, "scene.raw")
    subprocess.run([BINARY, "synth", scene, "--source", "speech@-40", "--source", "pink@50@2-5",
                    "--source", "pink@20@30-50", "--duration", str(SCENE_SECONDS), "--snr", "20",
                    "--file-format", "raw-f32le", "--truth", "none"], check=True, capture_output=True)
    with open(scene, "rb") as f:
        return f.read()


def live_soak(work, scene, hours):
    raw = os.path.join(work, "long.raw")
    repeats = int(round(hours * 3600 / SCENE_SECONDS))
    with open(raw, "wb") as f:
        for _ in range(repeats):
            f.write(scene)
    conf = os.path.join(work, "replay.conf")
    with open(conf, "w") as f:
        f.write(f'pcm.replay {{ type file; slave.pcm {{ type null }}; file "/dev/null"; infile "{raw}"; format "raw" }}\n')
    env = dict(os.environ, ALSA_CONFIG_PATH="/usr/share/alsa/alsa.conf:" + conf)
    stream_seconds = repeats * SCENE_SECONDS
    print(f"== live: {stream_seconds / 3600:.2f} h of stream time ({os.path.getsize(raw) / 1e9:.2f} GB raw f32le), "
          "ALSA file plugin, unpaced, --format jsonl", flush=True)
    start = time.monotonic()
    peak_file = os.path.join(work, "live.peak")
    proc = subprocess.Popen(timed([BINARY, "live", "--device", "replay", "--format", "jsonl"], peak_file),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    pid = tool_pid(proc.pid)
    counts = {"records": 0, "bad": 0, "last": None}
    def read_records():
        for line in proc.stdout:
            counts["records"] += 1
            if counts["records"] % 50000 == 1 and not line.startswith(b"{"):
                counts["bad"] += 1
            counts["last"] = line
    reader = threading.Thread(target=read_records)
    reader.start()
    stderr = []
    err_reader = threading.Thread(target=lambda: stderr.extend(proc.stderr.read().decode().splitlines()))
    err_reader.start()
    hop = 1024 / RATE
    samples = []
    while proc.poll() is None:
        status = proc_status(pid)
        if status:
            samples.append((counts["records"] * hop, *status))
        time.sleep(0.5)
    reader.join()
    err_reader.join()
    code, peak = proc.wait(), peak_mb(peak_file)
    wall = time.monotonic() - start
    summary = next((l for l in stderr if "frames" in l and "latency" in l), "(no summary)")
    frames = re.search(r"(\d+) frames", summary)
    overruns = re.search(r"(\d+) overruns?", summary)
    print(f"  exit {code}, {wall:.0f} s wall ({stream_seconds / wall:.0f}x real time), peak RSS {peak:.1f} MB")
    print(f"  {summary}")
    print(f"  records written {counts['records']}, summary frames {frames.group(1) if frames else '?'}, "
          f"overruns {overruns.group(1) if overruns else '?'}")
    # Start: the first sample after 5 % of the stream (past start-up); end: the last sample.
    warm = [s for s in samples if s[0] >= 0.05 * stream_seconds] or samples
    print("  stream time    VmRSS     VmHWM   fds")
    marks = [warm[0]] + [next((s for s in warm if s[0] >= f * stream_seconds), warm[-1]) for f in (0.25, 0.5, 0.75)] + [warm[-1]]
    for t, rss, hwm, fds in marks:
        print(f"  {t / 60:7.1f} min  {rss:6.1f} MB  {hwm:6.1f} MB  {fds:4d}")
    growth = warm[-1][1] - warm[0][1]
    fd_growth = warm[-1][3] - warm[0][3]
    print(f"  RSS growth {growth:+.2f} MB from {warm[0][0] / 60:.0f} min to the end; descriptors {warm[0][3]} -> {warm[-1][3]} "
          f"({fd_growth:+d}); lost records {int(frames.group(1)) - counts['records'] if frames else '?'}")
    os.remove(raw)


def feed(proc, scene, repeats, fed):
    try:
        for _ in range(repeats):
            proc.stdin.write(scene)
            fed[0] += len(scene)
        proc.stdin.close()
    except BrokenPipeError:
        pass


def day_run(name, arguments, scene, hours, work):
    repeats = int(round(hours * 3600 / SCENE_SECONDS))
    stream_seconds = repeats * SCENE_SECONDS
    command = [BINARY] + arguments
    print(f"== {name}: {stream_seconds / 3600:.1f} h of raw f32le on a pipe: {' '.join(arguments)}", flush=True)
    start = time.monotonic()
    err = open(os.path.join(work, name + ".stderr"), "w+")
    peak_file = os.path.join(work, name + ".peak")
    proc = subprocess.Popen(timed(command, peak_file), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=err)
    pid = tool_pid(proc.pid)
    fed = [0]
    feeder = threading.Thread(target=feed, args=(proc, scene, repeats, fed))
    feeder.start()
    samples = []
    next_mark = 0.0
    while proc.poll() is None:
        status = proc_status(pid)
        if status is None:
            time.sleep(0.1)
            continue
        t = fed[0] / (RATE * CHANNELS * BYTES)
        if t >= next_mark:
            samples.append((t, *status))
            next_mark += stream_seconds / 8
        time.sleep(0.5)
    code = proc.wait()
    feeder.join()
    peak = peak_mb(peak_file)
    wall = time.monotonic() - start
    print(f"  exit {code}, {wall:.0f} s wall ({stream_seconds / wall:.0f}x real time), peak RSS {peak:.1f} MB")
    print("  fed (stream h)   VmRSS     VmHWM")
    for t, rss, hwm, fds in samples:
        print(f"  {t / 3600:9.1f} h   {rss:6.1f} MB  {hwm:6.1f} MB")
    err.seek(0)
    lines = err.read().splitlines()
    for line in lines[-3:] if code != 0 else []:
        print("  stderr: " + line)
    return code, peak, wall


def day_soak(work, scene, hours):
    code, peak, _ = day_run("analyze", ["analyze", "-", "--raw-format", "f32le", "--format", "jsonl", "-q"], scene, hours, work)
    print(f"  analyze peak RSS {peak:.1f} MB (target <= 30 MB)")
    svg = os.path.join(work, "day.trace.svg")
    summary = os.path.join(work, "day.summary.json")
    code, peak, _ = day_run("trace", ["trace", "-", "--raw-format", "f32le", "--plot", svg, "--summary-json", summary, "-q"],
                            scene, hours, work)
    if code == 0:
        elements = sum(1 for _ in ET.parse(svg).getroot().iter())
        with open(summary) as f:
            segments = json.load(f)
        count = len(segments.get("segments", segments)) if isinstance(segments, dict) else len(segments)
        print(f"  SVG {os.path.getsize(svg) / 1e6:.2f} MB, {elements} elements, parses as XML; {count} segments")
        keep = os.path.join(ROOT, ".build", "soak-day.trace.svg")
        shutil.copy(svg, keep)
        print(f"  (plot kept at {keep})")
    print(f"  trace peak RSS {peak:.1f} MB (target <= 60 MB)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--live-hours", type=float, default=2)
    parser.add_argument("--day-hours", type=float, default=24)
    parser.add_argument("--skip-live", action="store_true")
    parser.add_argument("--skip-day", action="store_true")
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    if not args.no_build:
        build()
    work = tempfile.mkdtemp(prefix="soundcompass-soak-")
    try:
        scene = make_scene(work)
        if not args.skip_live:
            live_soak(work, scene, args.live_hours)
        if not args.skip_day:
            day_soak(work, scene, args.day_hours)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
