"""soundcompass.dask on a LocalCluster of 2 worker processes: a worker killed mid-run loses no
output, every output equals the single-machine records, a second run resumes (skips what is
complete and current), and a changed input is analysed again."""
from __future__ import annotations

import os
import signal
import threading
import time

import pandas as pd
import pytest

import soundcompass
import soundcompass.dask as scdask
from conftest import synth

if os.environ.get("CI") == "true":
    import distributed  # on CI the test runs or fails, never skips
else:
    distributed = pytest.importorskip("distributed")


def _assert_same(got: pd.DataFrame, want: pd.DataFrame, where: str) -> None:
    scalar = [c for c in want.columns if c not in ("bands", "sources")]
    pd.testing.assert_frame_equal(got[scalar].reset_index(drop=True), want[scalar].reset_index(drop=True),
                                  check_categorical=False, obj=where)
    for column in ("bands", "sources"):
        assert got[column].tolist() == want[column].tolist(), f"{where}: {column} differ"


def test_a_killed_worker_loses_no_output(tool, tmp_path):
    inputs, output = tmp_path / "in", tmp_path / "out"
    inputs.mkdir()
    paths = [synth(tool, inputs / f"take{i:02}.wav", "--source", f"speech@{-60 + 10 * i}", "--source", "pink@35@2-8",
                   "--duration", "30", "--seed", str(i)) for i in range(12)]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        victim = sorted(client.run(os.getpid).values())[0]
        done_at_kill: list[int] = []

        def kill_one_worker():
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and not any(output.glob("*.parquet")):
                time.sleep(0.01)
            done_at_kill.append(len(list(output.glob("*.parquet"))))
            os.kill(victim, signal.SIGKILL)

        killer = threading.Thread(target=kill_one_worker)
        killer.start()
        summary = scdask.analyze_files(paths, output, client=client)
        killer.join()
        # The kill came while most files were still to do.
        assert done_at_kill and 1 <= done_at_kill[0] <= len(paths) - 4, done_at_kill
        assert list(summary["status"]) == ["analysed"] * len(paths), summary
        assert victim not in client.run(os.getpid).values()

        for path in paths:
            _assert_same(scdask.read_output(scdask.output_path(path, output)), soundcompass.analyze_file(path),
                         str(path))
        assert not list(output.glob(".*.partial")), list(output.glob(".*"))

        # Resume: everything complete and current is skipped; a changed input is analysed again.
        again = scdask.analyze_files(paths, output, client=client)
        assert list(again["status"]) == ["skipped"] * len(paths)
        os.utime(paths[3], ns=(time.time_ns(), time.time_ns()))
        third = scdask.analyze_files(paths, output, client=client)
        assert list(third["status"]) == ["skipped"] * 3 + ["analysed"] + ["skipped"] * (len(paths) - 4)
        # Other options are other records: nothing is skipped.
        fourth = scdask.analyze_files(paths[:2], output, client=client, max_sources=1)
        assert list(fourth["status"]) == ["analysed"] * 2


def test_bad_inputs_are_reported_not_raised(tool, tmp_path):
    good = synth(tool, tmp_path / "good.wav", "--source", "speech@20", "--duration", "3")
    bad = tmp_path / "bad.wav"
    bad.write_bytes(b"not a sound file")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        summary = scdask.analyze_files([good, bad], tmp_path / "out", client=client)
        assert list(summary["status"]) == ["analysed", "failed"]
        assert "bad.wav" in summary["error"][1]
        assert not scdask.output_path(bad, tmp_path / "out").exists()
        with pytest.raises(ValueError, match="would both write"):
            scdask.analyze_files([good, tmp_path / "other" / "good.flac"], tmp_path / "out", client=client)
