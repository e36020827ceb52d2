#!/usr/bin/env python3
"""The compass page in a real browser (issue 32): headless Debian chromium driven by selenium.

Serves a `synth` recording with one source at a known bearing at real-time pace
(`live --input take.raw --serve 127.0.0.1:0`), loads the page, waits for live records, checks
that the dial's bearing text is within 2 degrees of the truth, saves a screenshot, stops the
server with SIGINT and checks that the page shows the disconnected state.

    compass_page.py SOUNDCOMPASS SCREENSHOT.png [--azimuth DEG]

Prints its figures; exits 0 when every check holds, 1 when one fails, 2 on a set-up problem.
Run by Tests/SoundCompassCLITests/ServeBrowserTests.swift (CI installs chromium,
chromium-driver and selenium: scripts/install-deps).
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("screenshot")
    parser.add_argument("--azimuth", type=float, default=30.0)
    parser.add_argument("--seconds", type=int, default=14)
    args = parser.parse_args()
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.options import Options
        from selenium.webdriver.chrome.service import Service
        from selenium.webdriver.common.by import By
    except ImportError as error:
        print(f"compass_page: selenium is missing ({error})", file=sys.stderr)
        return 2
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    if not chromium or not driver_path:
        print("compass_page: chromium and chromium-driver are needed (apt-get install chromium chromium-driver)", file=sys.stderr)
        return 2

    work = tempfile.mkdtemp(prefix="soundcompass-browser-")
    take = os.path.join(work, "take.raw")
    subprocess.run(
        [args.binary, "synth", take, "--source", f"pink@{args.azimuth:g}", "--duration", str(args.seconds), "--snr", "20"],
        check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    server = subprocess.Popen(
        [args.binary, "live", "--input", take, "--serve", "127.0.0.1:0", "--format", "jsonl"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = None
    deadline = time.time() + 20
    while url is None and time.time() < deadline:
        line = server.stderr.readline()
        if not line:
            break
        match = re.search(r"serving (http://127\.0\.0\.1:\d+/)", line)
        if match:
            url = match.group(1)
    if url is None:
        print("compass_page: the server did not start", file=sys.stderr)
        server.kill()
        return 2

    options = Options()
    options.binary_location = chromium
    for flag in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 f"--user-data-dir={os.path.join(work, 'profile')}", "--window-size=412,915",
                 "--force-prefers-reduced-motion"]:
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    failures = []
    try:
        driver.get(url)

        def wait_for(condition, seconds):
            end = time.time() + seconds
            while time.time() < end:
                value = condition()
                if value:
                    return value
                time.sleep(0.1)
            return None

        state = lambda: driver.find_element(By.ID, "state").get_attribute("data-state")
        if not wait_for(lambda: state() == "live" and driver.find_element(By.ID, "bearing").get_attribute("data-azimuth"), 15):
            failures.append(f"no live records within 15 s (state {state()!r})")
        time.sleep(2)  # a couple of seconds of records
        text = driver.find_element(By.ID, "bearing").text
        direction = driver.find_element(By.ID, "direction").text
        announce = driver.execute_script("return document.getElementById('announce').textContent")
        match = re.fullmatch(r"([+\u2212-]?)(\d+)°", text.strip())
        if not match:
            failures.append(f"bearing text {text!r} is not a bearing")
            shown = None
        else:
            shown = float(match.group(2)) * (-1 if match.group(1) in ("-", "\u2212") else 1)
            if abs(shown - args.azimuth) > 2:
                failures.append(f"bearing text {text!r} is {abs(shown - args.azimuth):.1f}° from the truth {args.azimuth:+g}°")
        latencies = driver.execute_script("return window.scLatencies.slice()") or []
        records = driver.execute_script("return window.scRecords")
        driver.save_screenshot(args.screenshot)
        print(f"compass_page: bearing text {text!r} ({direction}), truth {args.azimuth:+g}°; live region {announce!r}")
        if latencies:
            ordered = sorted(latencies)
            p50 = ordered[len(ordered) // 2]
            p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
            print(f"compass_page: {records} records in the browser; frame end to page p50 {p50} ms, p99 {p99} ms")
        print(f"compass_page: screenshot {args.screenshot}")

        server.send_signal(signal.SIGINT)
        server.wait(timeout=10)
        if not wait_for(lambda: state() == "disconnected", 10):
            failures.append(f"the page did not show the disconnected state after the server stopped (state {state()!r})")
        else:
            label = driver.find_element(By.ID, "state").text
            print(f"compass_page: after the server stopped the page says {label!r}")
    finally:
        driver.quit()
        if server.poll() is None:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)
    for failure in failures:
        print(f"compass_page: FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
