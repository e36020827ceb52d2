#!/usr/bin/env python3
"""Throughput and peak memory of `soundcompass analyze` (a benchmark, not a test).

Synthesises a 10-minute 48 kHz stereo recording (six one-minute-plus scenes: noise and
speech-like sources at several azimuths, sensor noise at 20 dB SNR), analyses it with the
default frame and hop, and prints CPU seconds, real-time factor (seconds of audio per CPU
second, single thread) and peak resident memory. Then repeats the analysis on a one-hour file
(the same audio six times) to show that memory does not grow with the file.

Usage: Benchmarks/throughput.py [--skip-hour] [--format jsonl|csv|text] [extra analyze options]
"""
import os
import resource
import subprocess
import sys
import time
import wave

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
BINARY = os.path.join(ROOT, ".build", "release", "soundcompass")


def run(args, **kwargs):
    return subprocess.run(args, check=True, **kwargs)


def measured_in_fresh_process(args):
    """Measure in a fresh Python child so ru_maxrss covers only this analysis."""
    code = (
        "import resource,subprocess,sys,time,os;"
        "s=time.monotonic();subprocess.run(sys.argv[1:],check=True,stdout=open(os.devnull,'wb'));"
        "w=time.monotonic()-s;r=resource.getrusage(resource.RUSAGE_CHILDREN);"
        "print(w,r.ru_utime,r.ru_stime,r.ru_maxrss/1024)"
    )
    result = subprocess.run([sys.executable, "-c", code] + args, check=True, capture_output=True, text=True)
    return tuple(float(x) for x in result.stdout.split())


def concatenate(source, target, times):
    with wave.open(source, "rb") as reader:
        params = reader.getparams()
        frames = reader.readframes(reader.getnframes())
    with wave.open(target, "wb") as writer:
        writer.setparams(params)
        for _ in range(times):
            writer.writeframes(frames)


def report(label, seconds_of_audio, figures):
    wall, user, system, rss = figures
    cpu = user + system
    print(f"{label}")
    print(f"  CPU {cpu:.2f} s (user {user:.2f}, sys {system:.2f}), wall {wall:.2f} s")
    print(f"  throughput {seconds_of_audio / cpu:.0f}x real time (seconds of audio per CPU second, single thread)")
    print(f"  peak resident memory {rss:.1f} MB")


def main():
    args = sys.argv[1:]
    skip_hour = "--skip-hour" in args
    args = [a for a in args if a != "--skip-hour"]
    if "--format" not in args:
        args += ["--format", "jsonl"]
    os.makedirs(OUT, exist_ok=True)
    print("building release ...", file=sys.stderr)
    run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=ROOT, stdout=sys.stderr)

    ten = os.path.join(OUT, "ten-minutes.wav")
    if not os.path.exists(ten):
        print("synthesising a 10-minute 48 kHz stereo file ...", file=sys.stderr)
        sources = ["pink@30@0-100", "speech@-40@100-200", "white@10@200-300", "pink@-70@300-400",
                   "speech@60@400-500", "pink@-60:60@500-600"]
        command = [BINARY, "synth", ten, "--duration", "600", "--rate", "48000", "--file-format", "wav16",
                   "--snr", "20", "--truth", "none", "--seed", "2026"]
        for s in sources:
            command += ["--source", s]
        run(command)
    version = subprocess.run([BINARY, "--version"], capture_output=True, text=True).stdout.strip()
    print(f"soundcompass {version}, analyze {' '.join(args)} > /dev/null")
    report("10 minutes, 48 kHz stereo 16-bit WAV, default frame 2048 / hop 1024, four bands:", 600,
           measured_in_fresh_process([BINARY, "analyze", ten, "-q"] + args))
    report("the same, broadband estimator only (--bands none):", 600,
           measured_in_fresh_process([BINARY, "analyze", ten, "-q", "--bands", "none"] + args))

    if not skip_hour:
        hour = os.path.join(OUT, "one-hour.wav")
        if not os.path.exists(hour):
            print("writing a one-hour file (the 10-minute file six times) ...", file=sys.stderr)
            concatenate(ten, hour, 6)
        report("60 minutes, the same audio six times, four bands:", 3600,
               measured_in_fresh_process([BINARY, "analyze", hour, "-q"] + args))


if __name__ == "__main__":
    main()
