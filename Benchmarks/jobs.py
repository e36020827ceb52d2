#!/usr/bin/env python3
"""Files per second of `soundcompass analyze FILE… --output-dir DIR --jobs N` (a benchmark, not a test).

Synthesises a 2-minute 48 kHz stereo 16-bit WAV (speech-like and noise sources at several
azimuths, sensor noise at 20 dB SNR), copies it to COPIES files, and analyses them all with
--jobs 1 and --jobs 2, alternating, REPEATS times each. Prints the wall time of every run, the
best files per second of each job count, and the ratio of the best --jobs 2 to the best
--jobs 1. Prints the CPU time of each run (a share of one core near 200 % with --jobs 2 means
the run had both cores) and the load average before and after: the machine's cores are
shared, and a busy machine cannot show a speed-up.

Usage: Benchmarks/jobs.py [--copies N] [--repeats N] [--jobs N] [extra analyze options]
(build the release binary first: swift build -c release --product soundcompass)
"""
import os
import resource
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out", "jobs")
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")


def option(args, name, default):
    if name in args:
        i = args.index(name)
        value = int(args[i + 1])
        del args[i:i + 2]
        return value
    return default


def timed(command):
    """Wall seconds of `command`, and the CPU seconds (user + system) it used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    args = sys.argv[1:]
    copies = option(args, "--copies", 4)
    repeats = option(args, "--repeats", 3)
    most = option(args, "--jobs", 2)
    os.makedirs(OUT, exist_ok=True)
    source = os.path.join(OUT, "two-minutes.wav")
    if not os.path.exists(source):
        print("synthesising a 2-minute 48 kHz stereo file ...", file=sys.stderr)
        subprocess.run([BINARY, "synth", source, "--duration", "120", "--rate", "48000", "--file-format", "wav16",
                        "--snr", "20", "--truth", "none", "--seed", "2027",
                        "--source", "speech@-40@0-60", "--source", "pink@30@50-120"], check=True)
    files = []
    for i in range(copies):
        path = os.path.join(OUT, f"take{i + 1}.wav")
        if not os.path.exists(path):
            shutil.copyfile(source, path)
        files.append(path)
    # Read the files once so that the first timed run does not pay for the page cache.
    for path in files:
        with open(path, "rb") as f:
            while f.read(1 << 20):
                pass
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"soundcompass {version}: analyze {copies} x 2-minute 48 kHz stereo WAV --output-dir DIR -q {' '.join(args)}")
    print(f"load average before: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} CPUs")
    best = {}
    for r in range(repeats):
        for jobs in range(1, most + 1):
            out = os.path.join(OUT, f"records-{jobs}")
            wall, cpu = timed([BINARY, "analyze", *files, "--output-dir", out, "--jobs", str(jobs), "-q"] + args)
            print(f"  run {r + 1}, --jobs {jobs}: {wall:.2f} s wall, CPU {cpu:.2f} s ({100 * cpu / wall:.0f} % of one core), "
                  f"{copies / wall:.2f} files/s")
            best[jobs] = min(best.get(jobs, wall), wall)
    print(f"load average after: {os.getloadavg()[0]:.2f} (1 min)")
    for jobs in sorted(best):
        print(f"--jobs {jobs}: best {copies / best[jobs]:.2f} files/s ({copies * 120 / best[jobs]:.0f} s of audio per second)")
    for jobs in sorted(best)[1:]:
        print(f"--jobs {jobs} / --jobs 1: {best[1] / best[jobs]:.2f}x")


if __name__ == "__main__":
    main()
