"""The C interface of libSoundCompassC.so (Sources/CSoundCompass/include/soundcompass.h), through ctypes.

Every struct here mirrors the header's member for member; ``ABI_VERSION`` is the header's
``SC_ABI_VERSION`` these mirrors were written for, checked against the loaded library.
"""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

ABI_VERSION = 1

OK, INTERNAL_ERROR, USAGE, DATA_ERROR, NO_INPUT, IO_ERROR = 0, 1, 64, 65, 66, 74

HEMISPHERES = ("unknown", "front", "back")


class Record(ctypes.Structure):
    _fields_ = [
        ("frame", ctypes.c_int64),
        ("time", ctypes.c_double),
        ("azimuth", ctypes.c_double),
        ("raw_azimuth", ctypes.c_double),
        ("lateral", ctypes.c_double),
        ("confidence", ctypes.c_double),
        ("ild_db", ctypes.c_double),
        ("itd_us", ctypes.c_double),
        ("level_dbfs", ctypes.c_double),
        ("yaw", ctypes.c_double),
        ("world_azimuth", ctypes.c_double),
        ("itd_confidence", ctypes.c_double),
        ("ild_confidence", ctypes.c_double),
        ("dominant_hz", ctypes.c_double),
        ("noise_floor_dbfs", ctypes.c_double),
        ("active", ctypes.c_int32),
        ("hemisphere", ctypes.c_int32),
        ("band_count", ctypes.c_int32),
        ("source_count", ctypes.c_int32),
    ]


class Band(ctypes.Structure):
    _fields_ = [
        ("azimuth", ctypes.c_double),
        ("confidence", ctypes.c_double),
        ("level_dbfs", ctypes.c_double),
        ("index", ctypes.c_int32),
        ("loudest", ctypes.c_int32),
    ]


class Source(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_int64),
        ("azimuth", ctypes.c_double),
        ("confidence", ctypes.c_double),
        ("level_dbfs", ctypes.c_double),
        ("world_azimuth", ctypes.c_double),
        ("active", ctypes.c_int32),
        ("hemisphere", ctypes.c_int32),
    ]


class Info(ctypes.Structure):
    _fields_ = [
        ("sample_rate", ctypes.c_double),
        ("frame_length", ctypes.c_int32),
        ("hop_length", ctypes.c_int32),
        ("band_count", ctypes.c_int32),
        ("max_sources", ctypes.c_int32),
    ]


class BandInfo(ctypes.Structure):
    _fields_ = [("name", ctypes.c_char_p), ("low_hz", ctypes.c_double), ("high_hz", ctypes.c_double)]


def _library_path() -> str:
    """The library: $SOUNDCOMPASS_LIBRARY, or the copy installed beside this module."""
    override = os.environ.get("SOUNDCOMPASS_LIBRARY")
    if override:
        return override
    return str(Path(__file__).with_name("libSoundCompassC.so"))


def _load() -> ctypes.CDLL:
    path = _library_path()
    try:
        lib = ctypes.CDLL(path)
    except OSError as error:
        raise ImportError(
            f"{path}: the SoundCompass library cannot be loaded ({error}); reinstall with `pip install ./python` "
            "from the repository, or set SOUNDCOMPASS_LIBRARY to a built libSoundCompassC.so"
        ) from None
    lib.sc_abi_version.restype = ctypes.c_int
    lib.sc_abi_version.argtypes = []
    found = lib.sc_abi_version()
    if found != ABI_VERSION:
        raise ImportError(f"{path}: C interface version {found}, but this package needs {ABI_VERSION}; reinstall it")
    handle = ctypes.c_void_p
    argv = ctypes.POINTER(ctypes.c_char_p)
    signatures = {
        "sc_analyzer_create": (ctypes.c_int, [ctypes.c_double, ctypes.c_int, argv, ctypes.POINTER(handle),
                                              ctypes.c_char_p, ctypes.c_size_t]),
        "sc_analyzer_open_file": (ctypes.c_int, [ctypes.c_char_p, ctypes.c_int, argv, ctypes.POINTER(handle),
                                                 ctypes.c_char_p, ctypes.c_size_t]),
        "sc_analyzer_destroy": (None, [handle]),
        "sc_analyzer_info": (ctypes.c_int, [handle, ctypes.POINTER(Info)]),
        "sc_analyzer_band_info": (ctypes.c_int, [handle, ctypes.c_int32, ctypes.POINTER(BandInfo)]),
        "sc_analyzer_write": (ctypes.c_int, [handle, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
        "sc_analyzer_read": (ctypes.c_int, [handle, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p,
                                            ctypes.c_size_t, ctypes.POINTER(ctypes.c_size_t)]),
        "sc_analyzer_error": (ctypes.c_char_p, [handle]),
        "sc_analyzer_warnings": (ctypes.c_char_p, [handle]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(lib, name)
        function.restype = restype
        function.argtypes = argtypes
    return lib


lib = _load()
