#!/usr/bin/env python3
"""A one-hour trace: how long `soundcompass trace` takes and how big its SVG is (a benchmark,
not a test).

Uses the one-hour 48 kHz file of Benchmarks/throughput.py (the 10-minute scene six times; made
here when missing), runs `soundcompass trace FILE --plot OUT.svg`, and prints the wall time of
the whole command, the rendering time the tool reports (collecting the frames is part of the
analysis; rendering is the SVG alone), the size of the SVG and whether it parses as XML.
With --png, also renders the SVG to PNG with headless Chromium and reports that time.

Usage: Benchmarks/trace.py [--png]
"""
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import throughput  # noqa: E402

OUT = throughput.OUT
BINARY = throughput.BINARY


def main():
    os.makedirs(OUT, exist_ok=True)
    print("building release ...", file=sys.stderr)
    throughput.run(["swift", "build", "-c", "release", "--product", "soundcompass"], cwd=throughput.ROOT, stdout=sys.stderr)
    ten = os.path.join(OUT, "ten-minutes.wav")
    hour = os.path.join(OUT, "one-hour.wav")
    if not os.path.exists(ten):
        sys.exit("run Benchmarks/throughput.py --skip-hour first: it synthesises the 10-minute scene")
    if not os.path.exists(hour):
        throughput.concatenate(ten, hour, 6)
    svg = os.path.join(OUT, "one-hour.trace.svg")
    start = time.monotonic()
    result = subprocess.run([BINARY, "trace", hour, "--plot", svg], capture_output=True, text=True, check=True)
    wall = time.monotonic() - start
    rendered = re.search(r"rendered in ([0-9.]+) s", result.stderr)
    segments = re.search(r"(\d+) active segments?", result.stderr)
    size = os.path.getsize(svg)
    root = ET.parse(svg).getroot()
    print(f"one hour, 48 kHz stereo, default settings: trace {wall:.2f} s wall in all "
          f"(analysis and plot), SVG rendered in {rendered.group(1) if rendered else '?'} s")
    print(f"  SVG {size / 1e6:.2f} MB, {sum(1 for _ in root.iter())} elements, parses as XML; "
          f"{segments.group(1) if segments else '?'} active segments")
    if "--png" in sys.argv:
        png = os.path.join(OUT, "one-hour.trace.png")
        start = time.monotonic()
        subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                        f"--screenshot={png}", "--window-size=1200,900", "file://" + svg],
                       capture_output=True, check=True)
        print(f"  Chromium drew it to PNG in {time.monotonic() - start:.2f} s ({os.path.getsize(png) / 1e3:.0f} kB)")


if __name__ == "__main__":
    main()
