"""The PEP 517 build backend of the soundcompass Python package.

It builds the engine's C library (the SwiftPM product SoundCompassC) with the Swift toolchain,
then writes a wheel holding the Python modules, libSoundCompassC.so and its header. Nothing else
is needed to build: no setuptools, no compiler step of Python's own.

Environment:
  SOUNDCOMPASS_SWIFT_BUILD_ARGS  arguments for `swift build` instead of `-c release`.
  SOUNDCOMPASS_BUILT_LIBRARY     a libSoundCompassC.so already built from this checkout, put in
                                 the wheel instead of building one: scripts/test passes the one its
                                 test build made, so that CI builds the engine once.
"""
from __future__ import annotations

import base64
import hashlib
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

_PYTHON = Path(__file__).resolve().parent.parent
_REPOSITORY = _PYTHON.parent
_LIBRARY = "libSoundCompassC.so"
_HEADER = _REPOSITORY / "Sources" / "CSoundCompass" / "include" / "soundcompass.h"


def _project() -> dict:
    with open(_PYTHON / "pyproject.toml", "rb") as f:
        return tomllib.load(f)["project"]


def _build_library() -> Path:
    built = os.environ.get("SOUNDCOMPASS_BUILT_LIBRARY")
    if built:
        if not Path(built).is_file():
            raise RuntimeError(f"{built}: SOUNDCOMPASS_BUILT_LIBRARY names no file")
        return Path(built)
    if not (_REPOSITORY / "Package.swift").exists():
        raise RuntimeError(f"{_REPOSITORY}: not the SoundCompass repository; install with `pip install ./python` from its root")
    if shutil.which("swift") is None:
        raise RuntimeError("the Swift toolchain (`swift`) is not on PATH: it builds the engine (see the README's set-up)")
    arguments = shlex.split(os.environ.get("SOUNDCOMPASS_SWIFT_BUILD_ARGS", "-c release"))
    command = ["swift", "build", "--package-path", str(_REPOSITORY), *arguments, "--product", "SoundCompassC"]
    print("soundcompass: " + " ".join(command), file=sys.stderr, flush=True)
    subprocess.run(command, check=True, stdout=sys.stderr)
    bin_path = subprocess.run(
        ["swift", "build", "--package-path", str(_REPOSITORY), *arguments, "--show-bin-path"],
        check=True, capture_output=True, text=True).stdout.strip()
    library = Path(bin_path) / _LIBRARY
    if not library.exists():
        raise RuntimeError(f"{library}: the build did not make the library")
    return library


def _tag() -> str:
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    return f"py3-none-{platform}"


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def _metadata(project: dict) -> str:
    lines = [
        "Metadata-Version: 2.1",
        f"Name: {project['name']}",
        f"Version: {project['version']}",
        f"Summary: {project['description']}",
        f"Requires-Python: {project['requires-python']}",
    ]
    lines += [f"Requires-Dist: {d}" for d in project.get("dependencies", [])]
    for extra, requirements in project.get("optional-dependencies", {}).items():
        lines.append(f"Provides-Extra: {extra}")
        lines += [f"Requires-Dist: {r}; extra == \"{extra}\"" for r in requirements]
    readme = (_PYTHON / project["readme"]).read_text()
    return "\n".join(lines) + "\nDescription-Content-Type: text/markdown\n\n" + readme


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    library = _build_library()
    name, version = project["name"], project["version"]
    dist_info = f"{name}-{version}.dist-info"
    files: list[tuple[str, bytes]] = []
    for module in sorted((_PYTHON / "soundcompass").glob("*.py")):
        files.append((f"soundcompass/{module.name}", module.read_bytes()))
    files.append((f"soundcompass/{_LIBRARY}", library.read_bytes()))
    files.append(("soundcompass/include/soundcompass.h", _HEADER.read_bytes()))
    files.append((f"{dist_info}/METADATA", _metadata(project).encode()))
    files.append((f"{dist_info}/WHEEL",
                  f"Wheel-Version: 1.0\nGenerator: soundcompass_build\nRoot-Is-Purelib: false\nTag: {_tag()}\n".encode()))
    record = [_record_line(n, d) for n, d in files] + [f"{dist_info}/RECORD,,"]
    files.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    wheel_name = f"{name}-{version}-{_tag()}.whl"
    with zipfile.ZipFile(Path(wheel_directory) / wheel_name, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file_name, data in files:
            info = zipfile.ZipInfo(file_name, date_time=(2026, 1, 1, 0, 0, 0))
            info.external_attr = (0o755 if file_name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            wheel.writestr(info, data)
    return wheel_name
