"""The binding gives the command-line tool's records: field by field, on every scene of
Benchmarks/same-answers.py, through analyze_file and through Analyzer fed in uneven blocks; and
the tool's option checks and messages."""
from __future__ import annotations

import importlib.util
import json
import subprocess

import numpy as np
import pytest

import soundcompass
from conftest import REPOSITORY, read_wav, synth

_spec = importlib.util.spec_from_file_location("same_answers", REPOSITORY / "Benchmarks" / "same-answers.py")
same_answers = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(same_answers)

#: Decimals the JSON lines print each field with (RecordWriter.swift): a value read back from
#: them is the engine's within half a unit of the last place.
DECIMALS = {
    "time": 6, "azimuth": 2, "raw_azimuth": 2, "lateral": 4, "confidence": 3, "ild_db": 2, "itd_us": 1,
    "level_dbfs": 1, "itd_confidence": 3, "ild_confidence": 3, "dominant_hz": 1, "noise_floor_dbfs": 1,
    "yaw": 2, "world_azimuth": 2, "low_hz": 1, "high_hz": 1,
}
SOURCE_DECIMALS = {"azimuth": 2, "confidence": 3, "level_dbfs": 1, "world_azimuth": 2}


def _options(arguments: list[str]) -> dict:
    """`--spacing 0.6` → {"spacing": "0.6"}: the scene's analysis options as keywords."""
    options, i = {}, 0
    while i < len(arguments):
        name = arguments[i][2:].replace("-", "_")
        options[name] = arguments[i + 1]
        i += 2
    return options


def _same(expected, got, decimals: int, where: str) -> None:
    if expected is None:
        assert got is None or got != got, f"{where}: expected none, got {got}"
        return
    if isinstance(expected, (bool, str)):
        assert expected == got, f"{where}: {expected!r} != {got!r}"
        return
    assert abs(float(got) - expected) <= 0.5 * 10 ** -decimals + 1e-9 * max(1.0, abs(expected)), \
        f"{where}: the tool printed {expected}, the binding gave {got}"


def _compare(lines: list[dict], records: list[dict], scene: str) -> None:
    assert len(records) == len(lines), f"{scene}: {len(records)} records, the tool wrote {len(lines)}"
    for n, (line, record) in enumerate(zip(lines, records)):
        for key, value in line.items():
            where = f"{scene} record {n} {key}"
            if key == "bands":
                assert len(record["bands"]) == len(value), where
                for band, got in zip(value, record["bands"]):
                    for k, v in band.items():
                        _same(v, got[k], DECIMALS.get(k, 3 if k == "confidence" else 2), f"{where}.{band['name']}.{k}")
            elif key == "sources":
                assert [s["id"] for s in record["sources"]] == [s["id"] for s in value], where
                for source, got in zip(value, record["sources"]):
                    for k, v in source.items():
                        _same(v, got[k], SOURCE_DECIMALS.get(k, 0), f"{where}.{source['id']}.{k}")
            else:
                _same(value, record[key], DECIMALS.get(key, 0), where)


def _frame_records(frame) -> list[dict]:
    """analyze_file's DataFrame as records with the JSON lines' keys."""
    out = []
    for row in frame.to_dict("records"):
        row["bands"] = list(row["bands"])
        row["sources"] = list(row["sources"])
        out.append(row)
    return out


@pytest.mark.parametrize("scene", same_answers.SCENES, ids=[s[0] for s in same_answers.SCENES])
def test_records_equal_the_tools(scene, tool, tmp_path):
    name, synth_options, analyze_options = scene
    wav = synth(tool, tmp_path / f"{name}.wav", *synth_options, "--duration", same_answers.SECONDS, "--seed", "7")
    printed = subprocess.run([tool, "analyze", str(wav), "--format", "jsonl", "--quiet", *analyze_options],
                             check=True, capture_output=True, text=True).stdout.splitlines()
    lines = [json.loads(line) for line in printed]
    assert len(lines) > 100

    frame = soundcompass.analyze_file(wav, **_options(analyze_options))
    _compare(lines, _frame_records(frame), name + " (analyze_file)")

    # The same through Analyzer, fed in blocks of uneven, seeded sizes.
    left, right, rate = read_wav(wav)
    analyzer = soundcompass.Analyzer(rate, **_options(analyze_options))
    rng = np.random.default_rng(11)
    records, at = [], 0
    while at < len(left):
        n = int(rng.integers(1, 5000))
        records += analyzer.process(left[at:at + n], right[at:at + n])
        at += n
    _compare(lines, records, name + " (Analyzer)")


def test_option_messages_are_the_tools(tool):
    for options, arguments in [({"spacing": 9}, ["--spacing", "9"]),
                               ({"max_sources": 12}, ["--max-sources", "12"]),
                               ({"array": "tetrahedral"}, ["--array", "tetrahedral"]),
                               ({"hrtf": "x.sofa", "array": "spaced"}, ["--hrtf", "x.sofa", "--array", "spaced"]),
                               ({"bands": "low:500-100"}, ["--bands", "low:500-100"])]:
        with pytest.raises(soundcompass.OptionError) as raised:
            soundcompass.Analyzer(48000, **options)
        assert raised.value.status == 64
        printed = subprocess.run([tool, "analyze", *arguments, "--quiet"], capture_output=True, text=True)
        assert printed.returncode == 64
        assert str(raised.value) in printed.stderr, (str(raised.value), printed.stderr)


def test_defaults_are_the_tools():
    analyzer = soundcompass.Analyzer(48000)
    assert (analyzer.frame_length, analyzer.hop_length, analyzer.max_sources) == (2048, 1024, 3)
    assert [b[0] for b in analyzer.bands] == ["low", "speech", "alert", "high"]
    assert soundcompass.Analyzer(48000, steady_sources=False, max_sources=0).max_sources == 0


def test_bad_files_are_input_errors(tmp_path):
    with pytest.raises(soundcompass.InputError) as missing:
        soundcompass.analyze_file(tmp_path / "missing.wav")
    assert missing.value.status == 66 and "missing.wav" in str(missing.value)
    junk = tmp_path / "junk.wav"
    junk.write_bytes(b"RIFF\x00\x00\x00\x00WAVEjunk" * 4)
    with pytest.raises(soundcompass.InputError) as bad:
        soundcompass.analyze_file(junk)
    assert bad.value.status == 65 and "junk.wav" in str(bad.value)


def test_nan_samples_are_replaced_and_said():
    analyzer = soundcompass.Analyzer(48000)
    rng = np.random.default_rng(3)
    left = (0.1 * rng.standard_normal(48000)).astype(np.float32)
    right = left.copy()
    left[100:110] = np.nan
    records = analyzer.process(left, right)
    assert records and all(np.isfinite(r["azimuth"]) for r in records)
    assert any("10 NaN/Inf samples were replaced by 0" in w for w in analyzer.warnings())


def test_long_tables(tool, tmp_path):
    wav = synth(tool, tmp_path / "two.wav", "--source", "speech@-40", "--source", "pink@30", "--duration", "4",
                "--seed", "3")
    frame = soundcompass.analyze_file(wav)
    bands = soundcompass.bands_table(frame)
    assert len(bands) == 4 * len(frame)
    assert list(bands.columns[:2]) == ["frame", "time"] and set(bands["name"]) == {"low", "speech", "alert", "high"}
    sources = soundcompass.sources_table(frame)
    assert len(sources) == sum(len(s) for s in frame["sources"])
    assert sources.groupby("frame").size().max() <= 3
