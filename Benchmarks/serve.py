#!/usr/bin/env python3
"""Cost and latency of `soundcompass live --serve` (issue 32), on this machine's loopback.

1. CPU: `live` on a recording paced to real time, alone (`--real-time`) and serving 16 SSE
   clients (`--serve`); the process's own CPU time (wait4 rusage) per second of stream, and
   the difference in percent of one core.
2. Latency: each of the 16 clients notes when each record arrives (the end of its `data:` line)
   and subtracts the record's `wall_time` (the moment its frame ended: the period's release,
   for a paced recording). p50, p99 and max over all records of all clients.
3. A stalled client: 1 client connects and never reads, 15 read, for 16 s. The others'
   latency, the lateness of stdout's lines (their arrival minus the frame's `wall_time`), with
   and without the stalled client, and when /status counts the stalled client as dropped.

    Benchmarks/serve.py [--binary B] [--seconds S] [--clients N]

Targets (issue 32): p99 ≤ 50 ms with 16 clients; ≤ 5 % of one core extra over `live` alone;
a stalled client delays the others and stdout by at most one hop (21.3 ms) and is dropped
and counted. The clients are Python threads of this process: their own CPU is not counted,
and their scheduling adds to the latency measured (a conservative figure).
"""
import argparse
import datetime
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request


def iso_to_epoch(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()


class Client(threading.Thread):
    """An SSE reader on a raw socket; notes (frame, receipt − wall_time) per record."""

    def __init__(self, port, stall=False):
        super().__init__(daemon=True)
        self.port, self.stall = port, stall
        self.delays, self.frames = [], []
        self.stop = threading.Event()
        self.sock = socket.create_connection(("127.0.0.1", port))
        self.sock.sendall(b"GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")

    def run(self):
        if self.stall:
            self.stop.wait()
            return
        buffer = b""
        self.sock.settimeout(0.5)
        while not self.stop.is_set():
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                break
            now = time.time()
            if not chunk:
                break
            buffer += chunk
            while True:
                start = buffer.find(b"data: {")
                if start < 0:
                    break
                end = buffer.find(b"\n", start)
                if end < 0:
                    break
                line = buffer[start + 6:end]
                buffer = buffer[end + 1:]
                match = re.search(rb'"wall_time":"([^"]+)","frame":(\d+)', line)
                if match:
                    self.delays.append(now - iso_to_epoch(match.group(1).decode()))
                    self.frames.append(int(match.group(2)))

    def close(self):
        self.stop.set()
        try:
            self.sock.close()
        except OSError:
            pass


def quantiles(values):
    if not values:
        return "no records"
    ordered = sorted(values)
    q = lambda p: ordered[min(len(ordered) - 1, int(p * len(ordered)))] * 1000
    return f"p50 {q(0.5):.1f} ms, p99 {q(0.99):.1f} ms, max {ordered[-1] * 1000:.1f} ms over {len(ordered)} records"


def run_live(binary, arguments, clients=0, stalled=0, watch_status=False):
    """Runs live; returns (cpu seconds, clients, stdout arrival times, status snapshots)."""
    process = subprocess.Popen([binary, "live"] + arguments, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    port = None
    if "--serve" in arguments:
        while port is None:
            line = process.stderr.readline().decode()
            if not line:
                raise SystemExit("serve.py: the server did not start")
            match = re.search(r"serving http://127\.0\.0\.1:(\d+)/", line)
            if match:
                port = int(match.group(1))
    threading.Thread(target=process.stderr.read, daemon=True).start()
    readers = [Client(port, stall=i < stalled) for i in range(clients)] if port else []
    for reader in readers:
        reader.start()
    arrivals = []
    statuses = []

    def poll():
        start = time.time()
        while process.poll() is None:
            try:
                status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=1))
                statuses.append((time.time() - start, status))
            except Exception:
                pass
            time.sleep(0.5)

    if watch_status and port:
        threading.Thread(target=poll, daemon=True).start()
    for line in process.stdout:
        arrivals.append(time.time())
    _, exit_status, usage = os.wait4(process.pid, 0)
    process.returncode = exit_status
    for reader in readers:
        reader.close()
    return usage.ru_utime + usage.ru_stime, readers, arrivals, statuses


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/release/soundcompass")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--stall-only", action="store_true", help="only the stalled-client runs")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="soundcompass-serve-")
    take = os.path.join(work, "take.raw")
    subprocess.run([args.binary, "synth", take, "--source", "speech@-40", "--source", "pink@30", "--duration",
                    str(args.seconds), "--snr", "20", "--truth", "none"], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    hop = 1024 / 48000
    if not args.stall_only:
        measure_cost(args, take, hop)
    measure_stall(args, work, hop)


def measure_cost(args, take, hop):
    alone, _, _, _ = run_live(args.binary, ["--input", take, "--real-time", "--format", "jsonl"])
    served, readers, arrivals, _ = run_live(
        args.binary, ["--input", take, "--serve", "127.0.0.1:0", "--format", "jsonl"], clients=args.clients)
    print(f"serve.py: {args.seconds} s of stream paced to real time, hop {hop * 1000:.1f} ms")
    print(f"CPU of live alone:                   {alone:.3f} s = {100 * alone / args.seconds:.2f} % of one core")
    print(f"CPU of live serving {args.clients} clients:      {served:.3f} s = {100 * served / args.seconds:.2f} % of one core")
    print(f"extra CPU of serving {args.clients} clients:     {100 * (served - alone) / args.seconds:.2f} % of one core (target <= 5 %)")
    delays = [d for r in readers for d in r.delays]
    complete = sum(1 for r in readers if r.frames and r.frames == list(range(r.frames[0], r.frames[0] + len(r.frames))))
    print(f"frame end -> client receipt, {args.clients} clients: {quantiles(delays)} (target p99 <= 50 ms); "
          f"{complete}/{len(readers)} clients got every record")


def measure_stall(args, work, hop):
    seconds = max(16, args.seconds)
    take2 = os.path.join(work, "long.raw")
    subprocess.run([args.binary, "synth", take2, "--source", "pink@30", "--duration", str(seconds), "--snr", "20",
                    "--truth", "none"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for stalled in (0, 1):
        _, readers, arrivals, statuses = run_live(
            args.binary, ["--input", take2, "--serve", "127.0.0.1:0", "--format", "jsonl"], clients=args.clients,
            stalled=stalled, watch_status=True)
        reading = [r for r in readers if not r.stall]
        delays = [d for r in reading for d in r.delays]
        # stdout lateness against the pace: line i is due one hop after line i−1, from the first.
        late = [a - (arrivals[0] + i * hop) for i, a in enumerate(arrivals)]
        worst = max(range(len(late)), key=late.__getitem__) if late else 0
        dropped_at = next((t for t, s in statuses if s.get("clients_dropped", 0) > 0), None)
        last = statuses[-1][1] if statuses else {}
        label = "with 1 stalled client" if stalled else "without a stalled client"
        print(f"{label}: {len(reading)} reading clients {quantiles(delays)}; "
              f"stdout lines {len(arrivals)}, lateness vs. the pace max {1000 * max(late):.1f} ms "
              f"(at {worst * hop:.1f} s of stream)")
        if stalled:
            print(f"  the stalled client was counted dropped by /status {dropped_at:.1f} s after it connected (and never read)"
                  if dropped_at is not None else "  the stalled client was NOT dropped")
            print(f"  /status at the end: clients_dropped {last.get('clients_dropped')}, dropped_clients "
                  f"{[(c['records_sent'], c['records_dropped']) for c in last.get('dropped_clients', [])]}")


if __name__ == "__main__":
    main()
