#!/usr/bin/env python3
"""Speed of reading an IMU log: `soundcompass analyze --imu LOG` (a benchmark, not a test).

Writes IMU logs of 1 and 4 million rows (`time,yaw`, times spread over the 8-second demo scene)
and an 8 MB line without a line break, runs `soundcompass analyze --imu LOG --format jsonl`
on the demo scene with each, subtracts the time of the same run without `--imu`, and prints
rows per second. The 8 MB line is refused at the 64 KiB line limit (exit 65): its time shows
that refusing it does not read the rest. The 1 and 4 million row runs together show that
the time is linear in the size.

Usage: Benchmarks/imu-parse.py [BINARY]   (default .build/release/soundcompass; build it with
`swift build -c release` first)
"""
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "Benchmarks", "out")
BINARY = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "release", "soundcompass")


def write_rows(path, rows):
    """`rows` rows over 0…8 s, the yaw turning slowly and wrapping at ±180°."""
    if os.path.exists(path) and os.path.getsize(path) > 0:
        return
    step = 8.0 / rows
    with open(path, "w") as f:
        f.write("time,yaw\n")
        chunk = []
        for i in range(rows):
            chunk.append("%.7f,%.3f\n" % (i * step, ((i * 0.001) % 360) - 180))
            if len(chunk) == 100000:
                f.write("".join(chunk))
                chunk = []
        f.write("".join(chunk))


def timed(args):
    """Best of three wall times, seconds, and the last exit status."""
    best, status = float("inf"), 0
    for _ in range(3):
        start = time.monotonic()
        result = subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        best = min(best, time.monotonic() - start)
        status = result.returncode
    return best, status, result.stderr.decode(errors="replace").strip().splitlines()


def main():
    os.makedirs(OUT, exist_ok=True)
    base, status, _ = timed([BINARY, "analyze", "--format", "jsonl"])
    assert status == 0, "the demo analysis failed"
    print("demo scene without --imu: %.3f s" % base)
    for rows in (1_000_000, 4_000_000):
        path = os.path.join(OUT, "imu-%d.csv" % rows)
        write_rows(path, rows)
        wall, status, err = timed([BINARY, "analyze", "--format", "jsonl", "--imu", path])
        assert status == 0, "\n".join(err)
        mb = os.path.getsize(path) / 1e6
        parse = max(wall - base, 1e-9)
        print("%d rows (%.0f MB): %.3f s, of which reading the log %.3f s: %.2f million rows/s, %.0f MB/s"
              % (rows, mb, wall, parse, rows / parse / 1e6, mb / parse))
    line = os.path.join(OUT, "imu-8mb-line.csv")
    with open(line, "w") as f:
        f.write("time,yaw," + "1" * 8_000_000)
    wall, status, err = timed([BINARY, "analyze", "--format", "jsonl", "--imu", line])
    print("one 8 MB line: %.3f s, exit %d: %s" % (wall, status, err[-1] if err else ""))


if __name__ == "__main__":
    main()
