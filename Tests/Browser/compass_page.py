#!/usr/bin/env python3
"""The compass page in a real browser (issues 32, 44): headless Debian chromium driven by selenium.

Serves a `synth` recording with one source at a known bearing at real-time pace
(`live --input take.raw --serve 127.0.0.1:0`), loads the page, waits for live records, checks
that the dial's bearing text is within 2 degrees of the truth, saves a screenshot, stops the
server with SIGINT and checks that the page shows the disconnected state.

With --siren, serves real recordings instead (Tests/Browser/real_scene.py: a recorded police
siren at +45° from 5 s on, beside a recorded talker at -40° from 7.5 s) through
`live --serve --classify --alert siren,alarm,horn`, and reads from the page what a person would:
the alert banner (its class and its side), and the sources list (the siren's label beside a
bearing within 10° of the truth, the talker's label).

    compass_page.py SOUNDCOMPASS SCREENSHOT.png [--azimuth DEG] [--siren]

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
    parser.add_argument("--siren", action="store_true", help="real recordings: a police siren beside a talker")
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
    if args.siren:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import real_scene
        take = os.path.join(work, "siren-beside-talker.wav")
        truth = real_scene.make(take)
        command = [args.binary, "live", "--input", take, "--serve", "127.0.0.1:0", "--format", "jsonl",
                   "--classify", "--alert", "siren,alarm,horn"]
    else:
        take = os.path.join(work, "take.raw")
        subprocess.run(
            [args.binary, "synth", take, "--source", f"pink@{args.azimuth:g}", "--duration", str(args.seconds), "--snr", "20"],
            check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        command = [args.binary, "live", "--input", take, "--serve", "127.0.0.1:0", "--format", "jsonl"]
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
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
        if args.siren:
            failures += check_siren(driver, By, wait_for, truth, args.screenshot)
            return finish(server, driver, work, failures, state, wait_for, By)
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

        return finish(server, driver, work, failures, state, wait_for, By)
    finally:
        driver.quit()
        if server.poll() is None:
            server.kill()
        shutil.rmtree(work, ignore_errors=True)


def finish(server, driver, work, failures, state, wait_for, By):
    """Stops the server, checks the disconnected state, prints the failures; the exit status."""
    server.send_signal(signal.SIGINT)
    server.wait(timeout=10)
    if not wait_for(lambda: state() == "disconnected", 10):
        failures.append(f"the page did not show the disconnected state after the server stopped (state {state()!r})")
    else:
        label = driver.find_element(By.ID, "state").text
        print(f"compass_page: after the server stopped the page says {label!r}")
    for failure in failures:
        print(f"compass_page: FAILED: {failure}", file=sys.stderr)
    return 1 if failures else 0


SOURCE_ITEM = re.compile(r"^(\d+): (?:(.+) )?([+\u2212-]?)(\d+)° (.+)$")


def parse_sources(texts):
    """The page's source items, "2: Emergency vehicle +45° right", as (id, label or None, azimuth)."""
    parsed = []
    for text in texts:
        match = SOURCE_ITEM.match(text.strip())
        if match:
            azimuth = float(match.group(4)) * (-1 if match.group(3) in ("-", "\u2212") else 1)
            parsed.append((int(match.group(1)), match.group(2), azimuth))
    return parsed


def check_siren(driver, By, wait_for, truth, screenshot):
    """What a person reads on the page while the siren sounds: the banner and the labels."""
    failures = []
    banner = lambda: driver.find_element(By.ID, "alert")
    # The siren starts at truth["siren_start"] s of stream time; the page has until it ends.
    deadline = truth["siren_end"] + 8
    if not wait_for(lambda: not banner().get_attribute("hidden") and banner().text, deadline):
        failures.append(f"no alert banner within {deadline:.0f} s")
        return failures
    text = banner().text
    # The stream time of the first record that raised the banner, against the siren's onset.
    first = driver.execute_script("return window.scFirstAlertTime")
    latency = first - truth["siren_start"] if isinstance(first, (int, float)) else None
    print(f"compass_page: alert banner {text!r}, first raised by the record at {first} s of stream time "
          f"(siren from {truth['siren_start']:g} s: {latency:.2f} s after its onset)" if latency is not None
          else f"compass_page: alert banner {text!r}")
    # The target, 1.5 s (issue 44). Measured 1.29 s idle and 1.31 s with the server on one core
    # beside 8 busy loops. (The bound was 2.5 s while the test build's C was unoptimised: then
    # 2.8-4.3 s on loaded machines, when the classifier's thread fell behind.)
    if latency is None or not (0 <= latency <= 1.5):
        failures.append(f"the alert came {latency} s after the siren's onset (at most 1.5 s)")
    if "siren" not in text.lower():
        failures.append(f"the alert banner {text!r} does not name a siren")
    side = "right" if truth["siren_azimuth"] > 0 else "left"
    if f"on your {side}" not in text:
        failures.append(f"the alert banner {text!r} does not say 'on your {side}'")
    # Until the stream's last second, sample the sources list a few times: the siren labelled at
    # its bearing, the talker labelled at its own. Not only the first 5 s after the banner: the
    # talker starts beside the siren, and its first masked patches read "Plop" as often as
    # "Speech" (which depends on when the labeller's rounds fall, so on the machine's load);
    # pooled with hysteresis, a wrong first name can then stand for 2-3 s (seen on a CI runner:
    # "Plop" to the end of a 5 s look) before the talker's later patches name it.
    look = truth["seconds"] - 1 - first if isinstance(first, (int, float)) else 5
    siren_labels, talker_labels, samples, shot = [], [], 0, False
    end = time.time() + max(5, look)
    while time.time() < end:
        # The list is redrawn with each record: read it in one script, not element by element.
        items = driver.execute_script(
            "return Array.from(document.querySelectorAll('#sources li')).map((li) => li.textContent)") or []
        samples += 1
        both = [False, False]
        for _, label, azimuth in parse_sources(items):
            if abs(azimuth - truth["siren_azimuth"]) <= 10:
                siren_labels.append(label)
                both[0] = both[0] or bool(label)
            if abs(azimuth - truth["talker_azimuth"]) <= 10:
                talker_labels.append(label)
                both[1] = both[1] or bool(label)
        # The picture of Docs/Serve.md: the banner up and both sources named, when that happens.
        if not shot and all(both) and not banner().get_attribute("hidden"):
            driver.save_screenshot(screenshot)
            shot = True
        time.sleep(0.25)
    record_label = driver.find_element(By.ID, "label").text
    dial_names = driver.execute_script(
        "return Array.from(document.querySelectorAll('#dial .src text.name')).map((t) => t.textContent)") or []
    bands = driver.find_element(By.ID, "bands").text
    if not shot:
        driver.save_screenshot(screenshot)
    print(f"compass_page: sources near the siren ({truth['siren_azimuth']:+g}°): {siren_labels}; "
          f"near the talker ({truth['talker_azimuth']:+g}°): {talker_labels}; over {samples} looks")
    print(f"compass_page: record label {record_label!r}; names on the dial {dial_names}; bands {bands!r}")
    print(f"compass_page: screenshot {screenshot}")
    if not any(siren_labels):
        failures.append(f"no source within 10° of the siren ({truth['siren_azimuth']:+g}°) was labelled: {siren_labels}")
    if not any(label and ("speech" in label.lower() or "conversation" in label.lower() or "narration" in label.lower())
               for label in talker_labels):
        failures.append(f"no source within 10° of the talker ({truth['talker_azimuth']:+g}°) was labelled as speech: {talker_labels}")
    for word in ("speech", "alert"):
        if word in bands.lower():
            failures.append(f"the bands line {bands!r} names a band '{word}', which reads as a label")
    return failures


if __name__ == "__main__":
    sys.exit(main())
