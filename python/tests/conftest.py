"""Shared fixtures: the command-line tool (to make signals and to compare records with) and a
folder for the files it makes."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).resolve().parents[2]


def _tool() -> str:
    """$SOUNDCOMPASS_BINARY, the test build's, the release build's, or `soundcompass` on PATH."""
    candidates = [os.environ.get("SOUNDCOMPASS_BINARY")]
    for build in (".build-test", ".build"):
        for config in ("debug", "release"):
            candidates.append(str(REPOSITORY / build / "x86_64-unknown-linux-gnu" / config / "soundcompass"))
            candidates.append(str(REPOSITORY / build / "aarch64-unknown-linux-gnu" / config / "soundcompass"))
    candidates.append(shutil.which("soundcompass"))
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    pytest.fail("no soundcompass binary: build it (scripts/test does) or set SOUNDCOMPASS_BINARY")


@pytest.fixture(scope="session")
def tool() -> str:
    return _tool()


def synth(tool: str, path: Path, *arguments: str) -> Path:
    """Renders a deterministic scene with `soundcompass synth` (quietly)."""
    subprocess.run([tool, "synth", str(path), "--quiet", *arguments], check=True, stdout=subprocess.DEVNULL)
    return path


def read_wav(path: Path):
    """(left, right, rate) of a WAV file of float32 or 16/24/32-bit PCM (what synth writes)."""
    import struct

    import numpy as np

    data = Path(path).read_bytes()
    assert data[:4] == b"RIFF" and data[8:12] == b"WAVE", f"{path}: not a WAV file"
    at, fmt, samples = 12, None, None
    while at + 8 <= len(data):
        kind, size = data[at:at + 4], struct.unpack("<I", data[at + 4:at + 8])[0]
        body = data[at + 8:at + 8 + size]
        if kind == b"fmt ":
            tag, channels, rate, _, _, bits = struct.unpack("<HHIIHH", body[:16])
            if tag == 0xFFFE:
                tag = struct.unpack("<H", body[24:26])[0]
            fmt = (tag, channels, rate, bits)
        elif kind == b"data":
            samples = body
        at += 8 + size + (size & 1)
    tag, channels, rate, bits = fmt
    if tag == 3 and bits == 32:
        values = np.frombuffer(samples, "<f4")
    elif tag == 1 and bits == 16:
        values = np.frombuffer(samples, "<i2") / 32768.0
    elif tag == 1 and bits == 32:
        values = np.frombuffer(samples, "<i4") / 2147483648.0
    else:
        raise AssertionError(f"{path}: WAV format {tag} with {bits} bits is not read here")
    values = values[: len(values) // channels * channels].reshape(-1, channels).astype(np.float32)
    return values[:, 0].copy(), values[:, 1].copy(), rate
