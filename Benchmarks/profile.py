#!/usr/bin/env python3
"""Where the time goes: a per-stage profile of `soundcompass analyze` (a benchmark, not a test).

Renders a deterministic 20 s, 48 kHz stereo scene with `soundcompass synth` (a speech-like
talker at -30 deg, pink noise at +40 deg for 10 s, sensor noise at 20 dB SNR), then runs
`analyze FILE --format jsonl > /dev/null` under `valgrind --tool=callgrind`, once with the
default four bands and once with `--bands none`. Callgrind counts instructions, which stay the
same however loaded the machine is, so two builds can be compared on a shared machine. Each
stage is the inclusive instruction count of the functions that do it (see STAGES), per frame
and as a share of the analysis.

Microseconds per frame are those shares of the median CPU time of five runs outside valgrind
(less the time of a run on a 0.1 s file, the start-up), so they are only as steady as the
machine; instructions are the figure to compare.

Usage: Benchmarks/profile.py [--binary PATH] [--seconds S]
Needs valgrind (apt-get install valgrind) and a release build:
  swift build -c release --product soundcompass
"""
import os
import re
import shutil
import resource
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def argument(name, default):
    return sys.argv[sys.argv.index(name) + 1] if name in sys.argv else default


BINARY = argument("--binary", os.environ.get("SOUNDCOMPASS_BINARY") or os.path.join(ROOT, ".build", "release", "soundcompass"))
SECONDS = float(argument("--seconds", "20"))

# Symbols (substrings of Swift's mangled names) whose inclusive cost is read.
SYMBOLS = {
    "session": r"AnalysisSessionC3run6writer5trace8progress",
    "decode": r"FileReaderC4read4left5right",
    "write": r"RecordWriterC9writeLine",
    "process": r"StreamingAnalyzerC7process4left5right16emitWithEstimate",
    "frame": r"StreamingAnalyzerC12analyzeFrame",
    "filterbank": r"BandFilterBankC6append4left5right5count",
    # The analyzer measures (`measure`); builds before the one-fusion change called `estimate`.
    "direction": r"DirectionEstimatorC(?:8estimate|7measure)4left5right",
    "gcc": r"GCCPHATC8estimate4left5right",
    "transform": r"GCCPHATC9transform",
    "cross": r"GCCPHATC17formCrossSpectrum",
    "weight": r"GCCPHATC10weightBins",
    "correlate": r"GCCPHATC9correlate",
    "bands": r"SubbandEstimatorC8estimate7spectra",
    "bandcorrelation": r"GCCPHATC15bandCorrelation",
}

# (label, formula over the symbols' costs)
STAGES = [
    ("decode (libsndfile, deinterleave)", lambda c: c["decode"]),
    ("input: hygiene, DC blocker, framing", lambda c: c["process"] - c["frame"] - c["filterbank"] - c["write"]),
    ("biquad bank (band streams)", lambda c: c["filterbank"]),
    ("window + two forward FFTs", lambda c: c["transform"]),
    ("cross-spectrum", lambda c: c["cross"]),
    ("whitening + coherence weighting", lambda c: c["weight"]),
    ("inverse FFT (broadband)", lambda c: c["correlate"]),
    ("peak search + sub-sample refinement", lambda c: c["gcc"] - c["transform"] - c["cross"] - c["weight"] - c["correlate"]),
    ("levels, ILD, dominant frequency, fusion", lambda c: c["direction"] - c["gcc"]),
    ("bands: correlations (lags or IFFTs)", lambda c: c["bandcorrelation"]),
    ("bands: peaks, refinement, levels, fusion", lambda c: c["bands"] - c["bandcorrelation"]),
    ("activity, tracking, front/back, record", lambda c: c["frame"] - c["direction"] - c["bands"]),
    ("record formatting + writing", lambda c: c["write"]),
]


def callgrind(args):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "callgrind.out")
        # Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that clang gives the C parts of
        # SwiftNIO (linked in for `live --serve`) and gives up: profile a copy without debug
        # information (the symbol table, which names the stages, stays).
        binary = os.path.join(tmp, "soundcompass")
        shutil.copy(BINARY, binary)
        subprocess.run(["strip", "--strip-debug", binary], check=True)
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        text = subprocess.run(["callgrind_annotate", "--inclusive=yes", "--threshold=100", out],
                              capture_output=True, text=True, check=True).stdout
    total = int(re.search(r"^\s*([\d,]+) .*PROGRAM TOTALS", text, re.M).group(1).replace(",", ""))
    costs = {}
    for name, pattern in SYMBOLS.items():
        best = 0
        for line in text.splitlines():
            # Function entries, not calls ("=>"): the largest is the function's own (inlined
            # copies count less). Whether an entry ends in "[object]" depends on the directory
            # callgrind_annotate runs in, so that is not a test.
            if re.search(pattern, line) and "=>" not in line and "<compiler-generated>" not in line:
                match = re.match(r"\s*([\d,]+) ", line)
                if match:
                    best = max(best, int(match.group(1).replace(",", "")))
        costs[name] = best
    return total, costs


def cpu_seconds(args, runs=5):
    times = []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([BINARY] + args, stdout=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
    return sorted(times)[len(times) // 2]


def main():
    if not os.path.exists(BINARY):
        sys.exit(f"no binary at {BINARY}: swift build -c release --product soundcompass")
    with tempfile.TemporaryDirectory() as tmp:
        wav, short = os.path.join(tmp, "scene.wav"), os.path.join(tmp, "short.wav")
        common = ["--source", "speech@-30", "--source", f"pink@40@{SECONDS / 4:g}-{SECONDS * 3 / 4:g}", "--snr", "20",
                  "--truth", "none", "-q"]
        subprocess.run([BINARY, "synth", wav, "--duration", f"{SECONDS:g}"] + common, check=True, stderr=subprocess.DEVNULL)
        subprocess.run([BINARY, "synth", short, "--duration", "0.1", "--source", "speech@-30", "--truth", "none", "-q"],
                       check=True, stderr=subprocess.DEVNULL)
        frames = int((SECONDS * 48000 - 2048) // 1024) + 1
        print(f"{BINARY}\n{SECONDS:g} s, 48 kHz stereo, frame 2048 / hop 1024: {frames} frames")
        for label, extra in [("default (four bands)", []), ("--bands none", ["--bands", "none"])]:
            args = ["analyze", wav, "--format", "jsonl"] + extra
            total, costs = callgrind(args)
            cpu = max(cpu_seconds(args) - cpu_seconds(["analyze", short, "--format", "jsonl"] + extra), 1e-9)
            analysed = costs["session"]
            print(f"\n{label}: {total / 1e6:.0f} M instructions in all, {analysed / 1e6:.0f} M in the analysis "
                  f"({analysed / frames / 1e3:.0f} k per frame); CPU {cpu * 1e6 / frames:.1f} us per frame, "
                  f"{SECONDS / cpu:.0f}x real time without start-up; exactly {analysed:,} instructions in the analysis")
            print(f"  {'stage':44} {'k instr/frame':>13} {'share':>6} {'us/frame':>9}")
            shown = 0
            for name, formula in STAGES:
                value = formula(costs)
                if value <= 0:
                    continue
                shown += value
                share = value / analysed
                print(f"  {name:44} {value / frames / 1e3:13.1f} {share * 100:5.1f}% {share * cpu * 1e6 / frames:9.2f}")
            rest = analysed - shown
            print(f"  {'other (loops, calls, progress)':44} {rest / frames / 1e3:13.1f} {rest / analysed * 100:5.1f}% "
                  f"{rest / analysed * cpu * 1e6 / frames:9.2f}")


if __name__ == "__main__":
    main()
