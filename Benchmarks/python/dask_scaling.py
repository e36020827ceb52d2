#!/usr/bin/env python3
"""Throughput of soundcompass.dask.analyze_files with 1 and 2 workers (issue 48: 2 workers give
≥ 1.8× one worker's on a 2-core machine). A benchmark, not a test.

Synthesises FILES one-minute 48 kHz stereo files (a talker and a noise at seeded azimuths),
then, for 1 and 2 worker processes (one thread each) of a LocalCluster, REPEATS times
alternately: analyses every file (overwrite=True) and times the call. Prints every run, the best
files per second of each, their ratio, the workers' CPU time and the load average: the machine's
cores are shared, and a busy machine cannot show a speed-up.

Usage: Benchmarks/python/dask_scaling.py [--files N] [--repeats N] [--binary PATH]
(the package installed in this Python: `pip install ./python`; the binary only makes the files)
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--binary", default=os.path.join(ROOT, ".build", "release", "soundcompass"))
    args = parser.parse_args()

    import logging

    from distributed import Client, LocalCluster

    import soundcompass.dask as scdask

    with tempfile.TemporaryDirectory() as folder:
        paths = []
        for i in range(args.files):
            path = os.path.join(folder, f"take{i:02}.wav")
            subprocess.run([args.binary, "synth", path, "--quiet", "--duration", "60", "--snr", "20", "--seed",
                            str(i), "--source", f"speech@{-70 + 7 * i}", "--source", f"pink@{60 - 5 * i}"],
                           check=True)
            paths.append(path)
        print(f"{args.files} one-minute files; load average {os.getloadavg()[0]:.2f}")
        clusters = {n: LocalCluster(n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                                     silence_logs=logging.ERROR)
                    for n in (1, 2)}
        clients = {n: Client(cluster) for n, cluster in clusters.items()}
        for n, client in clients.items():  # imports and the library's load, before timing
            scdask.analyze_files(paths[:n], os.path.join(folder, f"warm{n}"), client=client, overwrite=True)
        best = {1: float("inf"), 2: float("inf")}
        for _ in range(args.repeats):
            for n, client in clients.items():
                start = time.monotonic()
                summary = scdask.analyze_files(paths, os.path.join(folder, f"out{n}"), client=client, overwrite=True)
                wall = time.monotonic() - start
                assert (summary["status"] == "analysed").all(), summary
                best[n] = min(best[n], wall)
                print(f"  {n} worker{'s' if n > 1 else ' '}: {wall:6.2f} s, {args.files / wall:5.2f} files/s, "
                      f"workers' CPU {summary['cpu'].sum():6.2f} s, {60 * args.files / wall:5.0f}x real time")
        for client in clients.values():
            client.close()
        for cluster in clusters.values():
            cluster.close()
        ratio = best[1] / best[2]
        print(f"best: 1 worker {args.files / best[1]:.2f} files/s, 2 workers {args.files / best[2]:.2f} files/s: "
              f"{ratio:.2f}x; load average {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
