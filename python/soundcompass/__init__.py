"""SoundCompass from Python: where a sound comes from, from a stereo pair of microphones.

>>> import soundcompass
>>> trace = soundcompass.analyze_file("take1.wav", spacing=0.2)      # a pandas DataFrame
>>> analyzer = soundcompass.Analyzer(rate=48000, max_sources=2)
>>> records = analyzer.process(left, right)                           # NumPy float32 arrays in

Options are the command-line tool's analysis options with ``_`` for ``-`` (``head_radius=0.09``
is ``--head-radius 0.09``; ``steady_sources=False`` is ``--no-steady-sources``): the same names,
defaults, checks and messages, because the library parses them with the tool's own parser. Every
field is the tool's JSON field of the same name (Docs/OutputFormat.md). Docs/Python.md has the
whole guide; :mod:`soundcompass.dask` analyses archives on a Dask cluster.
"""
from __future__ import annotations

import ctypes
import os
import warnings
from typing import Any, Iterator

import numpy as np

from . import _native
from ._native import lib

__all__ = [
    "Analyzer", "analyze_file", "bands_table", "sources_table", "SoundCompassError", "OptionError", "InputError",
    "ABI_VERSION",
]

ABI_VERSION = _native.ABI_VERSION

#: Flags that are on by default: ``False`` turns them off with their ``--no-`` form.
_INVERTIBLE = frozenset({"steady_sources"})

_RECORD = np.dtype(_native.Record)
_BAND = np.dtype(_native.Band)
_SOURCE = np.dtype(_native.Source)

#: Records read per call into the library.
_CHUNK = 2048

#: The broadband fields of a record, in the JSON lines' order.
SCALAR_FIELDS = (
    "time", "azimuth", "raw_azimuth", "lateral", "confidence", "ild_db", "itd_us", "level_dbfs", "active",
    "hemisphere", "yaw", "world_azimuth", "itd_confidence", "ild_confidence", "dominant_hz", "noise_floor_dbfs",
)


class SoundCompassError(Exception):
    """A failure the library reported: ``status`` is the command-line tool's exit code for it."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.status = status


class OptionError(SoundCompassError, ValueError):
    """An option is wrong (status 64, as the tool's usage errors)."""


class InputError(SoundCompassError):
    """The input cannot be found (66), read (74) or analysed (65)."""


def _error(status: int, message: str) -> SoundCompassError:
    kind = OptionError if status == _native.USAGE else InputError if status in (
        _native.NO_INPUT, _native.DATA_ERROR, _native.IO_ERROR) else SoundCompassError
    return kind(message, status)


def _arguments(options: dict[str, Any]) -> list[str]:
    """Keyword options as the tool's arguments: ``max_sources=2`` → ``--max-sources 2``."""
    arguments: list[str] = []
    for name, value in options.items():
        if value is None:
            continue
        flag = "--" + name.replace("_", "-")
        if value is True:
            arguments.append(flag)
        elif value is False:
            if name in _INVERTIBLE:
                arguments.append("--no-" + name.replace("_", "-"))
        elif isinstance(value, (list, tuple)):
            arguments += [flag, ",".join(str(v) for v in value)]
        else:
            arguments += [flag, str(value)]
    return arguments


def _argv(arguments: list[str]):
    return (ctypes.c_char_p * max(1, len(arguments)))(*[a.encode() for a in arguments])


class Analyzer:
    """The engine, fed with blocks of samples: ``process(left, right)`` returns the records of the
    frames they complete (state is kept between calls, so any block size gives the same records).

    :param rate: sample rate, Hz.
    :param options: the tool's analysis options (``array``, ``spacing``, ``head_radius``,
        ``profile``, ``hrtf``, ``ild_gain``, ``pattern``, ``angle``, ``mid_side``, ``side_gain``,
        ``frame``, ``hop``, ``swap``, ``gate``, ``bands``, ``response``, ``max_sources``,
        ``source_window``, ``steady_sources``); see ``soundcompass analyze --help``.
    :raises OptionError: an option is wrong, with the tool's message.
    """

    def __init__(self, rate: float = 48000, **options: Any):
        arguments = _arguments(options)
        handle = ctypes.c_void_p()
        message = ctypes.create_string_buffer(2048)
        status = lib.sc_analyzer_create(float(rate), len(arguments), _argv(arguments), ctypes.byref(handle),
                                        message, len(message))
        if status != _native.OK:
            raise _error(status, message.value.decode(errors="replace"))
        self._adopt(handle)

    @classmethod
    def _open_file(cls, path: str | os.PathLike, options: dict[str, Any]) -> "Analyzer":
        arguments = _arguments(options)
        handle = ctypes.c_void_p()
        message = ctypes.create_string_buffer(2048)
        status = lib.sc_analyzer_open_file(os.fsencode(path), len(arguments), _argv(arguments),
                                           ctypes.byref(handle), message, len(message))
        if status != _native.OK:
            raise _error(status, message.value.decode(errors="replace"))
        analyzer = cls.__new__(cls)
        analyzer._adopt(handle)
        return analyzer

    def _adopt(self, handle: ctypes.c_void_p) -> None:
        self._handle = handle
        info = _native.Info()
        lib.sc_analyzer_info(handle, ctypes.byref(info))
        #: Sample rate, Hz.
        self.rate = info.sample_rate
        #: Samples per analysis frame, and between frames.
        self.frame_length, self.hop_length = info.frame_length, info.hop_length
        #: Most sources in a record (0: the tracker is off).
        self.max_sources = info.max_sources
        bands = []
        for i in range(info.band_count):
            band = _native.BandInfo()
            lib.sc_analyzer_band_info(handle, i, ctypes.byref(band))
            bands.append((band.name.decode(), band.low_hz, band.high_hz))
        #: The bands every record carries: (name, low Hz, high Hz).
        self.bands = tuple(bands)
        self._records = np.zeros(_CHUNK, _RECORD)
        self._bands = np.zeros(_CHUNK * max(1, len(bands)), _BAND)
        self._sources = np.zeros(_CHUNK * max(1, self.max_sources), _SOURCE)

    def close(self) -> None:
        """Frees the engine (also done when the analyzer is collected)."""
        handle, self._handle = getattr(self, "_handle", None), None
        if handle:
            lib.sc_analyzer_destroy(handle)

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # at interpreter exit the library may already be gone
            pass

    def __enter__(self) -> "Analyzer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _live(self) -> ctypes.c_void_p:
        if not self._handle:
            raise ValueError("the analyzer is closed")
        return self._handle

    def _fail(self, status: int) -> SoundCompassError:
        return _error(status, lib.sc_analyzer_error(self._live()).decode(errors="replace"))

    def write(self, left, right) -> None:
        """Queues samples (NumPy arrays or sequences, converted to float32) for :meth:`read_chunks`."""
        left = np.ascontiguousarray(left, dtype=np.float32)
        right = np.ascontiguousarray(right, dtype=np.float32)
        if left.ndim != 1 or left.shape != right.shape:
            raise ValueError(f"left and right must be one-dimensional and as long: got {left.shape} and {right.shape}")
        status = lib.sc_analyzer_write(self._live(), left.ctypes.data, right.ctypes.data, left.size)
        if status != _native.OK:
            raise self._fail(status)

    def read_chunks(self) -> Iterator[tuple[np.ndarray, np.ndarray, np.ndarray]]:
        """Analyses what is queued (a file: reads on to its end) and yields the records in chunks:
        NumPy structured arrays (records; bands, ``len(bands)`` per record; sources,
        ``max_sources`` per record, ``source_count`` of them used), copies the caller keeps."""
        count = ctypes.c_size_t()
        while True:
            status = lib.sc_analyzer_read(self._live(), self._records.ctypes.data, self._bands.ctypes.data,
                                          self._sources.ctypes.data, _CHUNK, ctypes.byref(count))
            if status != _native.OK:
                raise self._fail(status)
            n = count.value
            if n == 0:
                return
            yield (self._records[:n].copy(), self._bands[:n * len(self.bands)].copy(),
                   self._sources[:n * self.max_sources].copy())

    def process(self, left, right) -> list[dict[str, Any]]:
        """Takes a block of samples and returns the records of the frames it completes, as dicts
        with the JSON lines' keys (plus ``frame``); ``bands`` and ``sources`` are lists of dicts."""
        self.write(left, right)
        out: list[dict[str, Any]] = []
        for records, bands, sources in self.read_chunks():
            out += self._dicts(records, bands, sources)
        return out

    def warnings(self) -> list[str]:
        """What the tool would warn about at the end (NaN samples replaced, a truncated file, …)."""
        text = lib.sc_analyzer_warnings(self._live()).decode(errors="replace")
        return [line for line in text.split("\n") if line]

    def _dicts(self, records: np.ndarray, bands: np.ndarray, sources: np.ndarray) -> list[dict[str, Any]]:
        nb, ns = len(self.bands), self.max_sources
        out = []
        for i, r in enumerate(records.tolist()):
            (frame, time, azimuth, raw, lateral, confidence, ild, itd, level, yaw, world, itdc, ildc, dominant,
             floor, active, hemisphere, band_count, source_count) = r
            record = {
                "frame": frame, "time": time, "azimuth": azimuth, "raw_azimuth": raw, "lateral": lateral,
                "confidence": confidence, "ild_db": ild, "itd_us": itd, "level_dbfs": level, "active": bool(active),
                "hemisphere": _native.HEMISPHERES[hemisphere], "yaw": None if yaw != yaw else yaw,
                "world_azimuth": None if world != world else world, "itd_confidence": itdc,
                "ild_confidence": ildc, "dominant_hz": dominant, "noise_floor_dbfs": floor,
            }
            record["bands"] = [
                {"name": self.bands[b["index"]][0], "low_hz": self.bands[b["index"]][1],
                 "high_hz": self.bands[b["index"]][2], "azimuth": float(b["azimuth"]),
                 "confidence": float(b["confidence"]), "level_dbfs": float(b["level_dbfs"]),
                 "loudest": bool(b["loudest"])}
                for b in bands[i * nb:i * nb + band_count]
            ]
            record["sources"] = [
                {"id": int(s["id"]), "azimuth": float(s["azimuth"]), "confidence": float(s["confidence"]),
                 "level_dbfs": float(s["level_dbfs"]), "active": bool(s["active"]),
                 "world_azimuth": None if s["world_azimuth"] != s["world_azimuth"] else float(s["world_azimuth"]),
                 "hemisphere": _native.HEMISPHERES[s["hemisphere"]]}
                for s in sources[i * ns:i * ns + source_count]
            ]
            out.append(record)
        return out


def analyze_file(path: str | os.PathLike, **options: Any):
    """Analyses a sound file as ``soundcompass analyze FILE`` does and returns a pandas DataFrame,
    one row per frame: ``frame`` and the broadband fields (missing ``yaw``/``world_azimuth`` as
    NaN, ``hemisphere`` as text), and ``bands`` and ``sources`` as list columns of structs
    (pyarrow-backed; :func:`bands_table` and :func:`sources_table` give them as long tables).

    :param options: the tool's analysis options, plus ``channels=(L, R)`` and ``swap=True``.
    :raises InputError: the file cannot be opened or read (with the tool's message).
    :raises OptionError: an option is wrong.
    """
    import pandas as pd
    import pyarrow as pa

    with Analyzer._open_file(path, options) as analyzer:
        chunks = list(analyzer.read_chunks())
        band_info, max_sources = analyzer.bands, analyzer.max_sources
        for line in analyzer.warnings():
            warnings.warn(line, stacklevel=2)
    nb = len(band_info)
    records = np.concatenate([c[0] for c in chunks]) if chunks else np.zeros(0, _RECORD)
    bands = np.concatenate([c[1] for c in chunks]) if chunks else np.zeros(0, _BAND)
    sources = np.concatenate([c[2] for c in chunks]) if chunks else np.zeros(0, _SOURCE)

    columns: dict[str, Any] = {"frame": records["frame"]}
    for name in SCALAR_FIELDS:
        if name == "active":
            columns[name] = records["active"].astype(bool)
        elif name == "hemisphere":
            columns[name] = pd.Categorical.from_codes(records["hemisphere"], categories=list(_native.HEMISPHERES))
        else:
            columns[name] = records[name]
    frame = pd.DataFrame(columns)

    # Bands: every record carries all of them, in order.
    band_counts = records["band_count"].astype(np.int64)
    band_used = (np.arange(max(nb, 1))[None, :] < band_counts[:, None]).reshape(-1)[: len(bands)]
    used_bands = bands[band_used] if nb else bands[:0]
    names = pa.array([b[0] for b in band_info], pa.string())
    lows = np.array([b[1] for b in band_info] or [0.0])
    highs = np.array([b[2] for b in band_info] or [0.0])
    index = used_bands["index"]
    band_struct = pa.StructArray.from_arrays(
        [pa.DictionaryArray.from_arrays(pa.array(index), names) if nb else pa.array([], pa.string()),
         pa.array(lows[index]), pa.array(highs[index]),
         pa.array(used_bands["azimuth"]), pa.array(used_bands["confidence"]), pa.array(used_bands["level_dbfs"]),
         pa.array(used_bands["loudest"].astype(bool))],
        names=["name", "low_hz", "high_hz", "azimuth", "confidence", "level_dbfs", "loudest"])
    band_offsets = np.concatenate([[0], np.cumsum(band_counts)]).astype(np.int32)
    band_lists = pa.ListArray.from_arrays(pa.array(band_offsets), band_struct)
    frame["bands"] = pd.arrays.ArrowExtensionArray(band_lists)

    source_counts = records["source_count"].astype(np.int64)
    stride = max(max_sources, 1)
    source_used = (np.arange(stride)[None, :] < source_counts[:, None]).reshape(-1)[: len(sources)]
    used = sources[source_used] if max_sources else sources[:0]
    world = used["world_azimuth"]
    hemispheres = pa.array(_native.HEMISPHERES, pa.string())
    source_struct = pa.StructArray.from_arrays(
        [pa.array(used["id"]), pa.array(used["azimuth"]), pa.array(used["confidence"]),
         pa.array(used["level_dbfs"]), pa.array(used["active"].astype(bool)),
         pa.array(world, mask=np.isnan(world)),
         pa.DictionaryArray.from_arrays(pa.array(used["hemisphere"]), hemispheres)],
        names=["id", "azimuth", "confidence", "level_dbfs", "active", "world_azimuth", "hemisphere"])
    source_offsets = np.concatenate([[0], np.cumsum(source_counts)]).astype(np.int32)
    frame["sources"] = pd.arrays.ArrowExtensionArray(pa.ListArray.from_arrays(pa.array(source_offsets), source_struct))
    frame.attrs["source"] = os.fspath(path)
    return frame


def _long_table(frame, column: str):
    import pandas as pd
    import pyarrow as pa
    import pyarrow.compute as pc

    lists = pa.chunked_array(frame[column].array._pa_array).combine_chunks()
    flat = pc.list_flatten(lists)
    parents = pc.list_parent_indices(lists).to_numpy()
    table = pa.Table.from_struct_array(flat).to_pandas() if len(flat) else pd.DataFrame(
        columns=[f.name for f in lists.type.value_type])
    table.insert(0, "time", frame["time"].to_numpy()[parents])
    table.insert(0, "frame", frame["frame"].to_numpy()[parents])
    return table


def bands_table(frame):
    """The ``bands`` of :func:`analyze_file`'s frames as a long DataFrame: one row per frame and
    band, keyed by ``frame`` and ``time``."""
    return _long_table(frame, "bands")


def sources_table(frame):
    """The ``sources`` of :func:`analyze_file`'s frames as a long DataFrame: one row per frame and
    listed source, keyed by ``frame`` and ``time``."""
    return _long_table(frame, "sources")
