#!/usr/bin/env python3
"""CPU time of the Python binding against the command-line tool on one long file (issue 48:
the binding's overhead over the CLI ≤ 10 % of CPU time). A benchmark, not a test.

Synthesises a MINUTES-minute 48 kHz stereo file (a talker, a pink noise, a moving source; 20 dB
SNR), then alternates, REPEATS times each:
  - `soundcompass analyze FILE --format jsonl > /dev/null`: the tool, its CPU time from
    getrusage of the child;
  - `soundcompass.analyze_file(FILE)` in a fresh Python process: the CPU time of the call alone
    (the process's time around it, with pandas and pyarrow already imported, as in a notebook),
    of those imports, and of the whole process (interpreter start and imports included).
Prints each run and the ratio of the best of each to the tool's best. Both use the same build.

Usage: Benchmarks/python/overhead.py [--minutes M] [--repeats N] [--binary PATH] [--python PATH]
(default binary .build/release/soundcompass; the package must be installed in --python's
environment: `pip install ./python`)
"""
import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CALL = """
import sys, time
start = time.process_time()
import pandas, pyarrow, soundcompass
imports = time.process_time() - start
start = time.process_time()
frame = soundcompass.analyze_file(sys.argv[1])
call = time.process_time() - start
print(call, imports, len(frame), sum(len(s) for s in frame["sources"]))
"""


def child_cpu(command, **kwargs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run(command, check=True, **kwargs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, time.monotonic() - start, result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=10)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "soundcompass"))
    parser.add_argument("--python", default=sys.executable)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as folder:
        wav = os.path.join(folder, "long.wav")
        seconds = str(int(args.minutes * 60))
        subprocess.run([args.binary, "synth", wav, "--quiet", "--duration", seconds, "--snr", "20",
                        "--source", "speech@-40", "--source", "pink@35", "--source", "white@-70:70@20-50"],
                       check=True)
        print(f"{args.minutes:g} min file, binary {args.binary}, python {args.python}")
        tool, calls, processes = [], [], []
        for _ in range(args.repeats):
            cpu, wall, _ = child_cpu([args.binary, "analyze", wav, "--format", "jsonl", "--quiet"],
                                     stdout=subprocess.DEVNULL)
            tool.append(cpu)
            print(f"  tool:   {cpu:6.2f} s CPU ({wall:5.2f} s wall, {float(seconds) / wall:5.0f}x real time)")
            cpu, wall, result = child_cpu([args.python, "-c", CALL, wav], stdout=subprocess.PIPE, text=True)
            call, imports, frames, sources = result.stdout.split()
            calls.append(float(call))
            processes.append(cpu)
            print(f"  python: {float(call):6.2f} s CPU in analyze_file, {float(imports):5.2f} s importing pandas, "
                  f"pyarrow and soundcompass, {cpu:6.2f} s for the process ({frames} frames, {sources} source entries)")
        best = min(tool)
        print(f"best: tool {best:.2f} s; analyze_file {min(calls):.2f} s = {100 * (min(calls) / best - 1):+.1f} %; "
              f"whole Python process {min(processes):.2f} s = {100 * (min(processes) / best - 1):+.1f} %")


if __name__ == "__main__":
    main()
