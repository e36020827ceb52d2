"""Archives on a Dask cluster: one task per file, one Parquet file per input.

>>> from dask.distributed import Client
>>> client = Client("tcp://scheduler:8786")          # or LocalCluster(), or any Dask deployment
>>> summary = soundcompass.dask.analyze_files(paths, output="traces/", client=client, spacing=0.2)

Scheduling, retries and a lost worker are Dask's: a task whose worker dies is run again on
another. An output is written under a temporary name and renamed when complete, so a file in
`output` is always whole; it records the input's size and time and the options, and a later call
skips an input whose output is complete and current (resume after a failure), unless `overwrite`.
"""
from __future__ import annotations

import json
import os
import time
import uuid
from pathlib import Path
from typing import Any, Iterable

__all__ = ["analyze_files", "output_path", "read_output"]

#: The key of the Parquet schema metadata that says what an output was made from.
_KEY = b"soundcompass"


def output_path(path: str | os.PathLike, output: str | os.PathLike) -> Path:
    """Where :func:`analyze_files` writes the records of `path`: OUTPUT/NAME.parquet."""
    return Path(output) / (Path(path).stem + ".parquet")


def _provenance(path: str, options: dict[str, Any]) -> dict[str, Any]:
    import soundcompass

    info = os.stat(path)
    return {"input": os.path.abspath(path), "size": info.st_size, "mtime_ns": info.st_mtime_ns,
            "options": options, "abi": soundcompass.ABI_VERSION}


def _complete(path: str, target: Path, options: dict[str, Any]) -> bool:
    """True when `target` holds the records of `path` as it is now, with `options`."""
    import pyarrow.parquet as pq

    if not target.exists():
        return False
    try:
        metadata = pq.read_schema(target).metadata or {}
        return json.loads(metadata.get(_KEY, b"{}")) == json.loads(json.dumps(_provenance(path, options)))
    except Exception:  # an unreadable output is remade
        return False


def _analyze_one(path: str, target: str, options: dict[str, Any]) -> dict[str, Any]:
    """The task: analyses one file and writes its Parquet file atomically (runs on a worker)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    import soundcompass

    started, cpu = time.perf_counter(), time.process_time()
    row: dict[str, Any] = {"path": path, "output": target, "status": "analysed", "frames": 0, "seconds": 0.0,
                           "error": "", "worker": os.environ.get("DASK_WORKER_NAME", str(os.getpid()))}
    try:
        provenance = _provenance(path, options)
        frame = soundcompass.analyze_file(path, **options)
    except (soundcompass.SoundCompassError, OSError) as error:
        row.update(status="failed", error=str(error))
        return row
    frame.attrs = {}
    table = pa.Table.from_pandas(frame, preserve_index=False)
    table = table.replace_schema_metadata({**(table.schema.metadata or {}), _KEY: json.dumps(provenance).encode()})
    final = Path(target)
    final.parent.mkdir(parents=True, exist_ok=True)
    temporary = final.with_name(f".{final.name}.{uuid.uuid4().hex}.partial")
    try:
        pq.write_table(table, temporary)
        os.replace(temporary, final)
    finally:
        if temporary.exists():
            temporary.unlink()
    row.update(frames=len(frame), seconds=float(frame["time"].iloc[-1]) if len(frame) else 0.0,
               wall=time.perf_counter() - started, cpu=time.process_time() - cpu)
    return row


def analyze_files(paths: Iterable[str | os.PathLike], output: str | os.PathLike, client=None, *,
                  overwrite: bool = False, retries: int = 2, **options: Any):
    """Analyses every file of `paths` on a Dask cluster (one task per file) and writes
    OUTPUT/NAME.parquet for each: the frames of :func:`soundcompass.analyze_file`.

    :param output: the folder of the Parquet files (made if missing).
    :param client: a ``dask.distributed.Client``; ``None``: the current one (``get_client()``).
    :param overwrite: analyse every input, even one whose output is complete and current.
    :param retries: how often Dask runs a task again when it raises (a lost worker is always
        rescheduled by Dask itself, up to its ``allowed-failures``).
    :param options: the analysis options, as for :func:`soundcompass.analyze_file`.
    :returns: a pandas DataFrame, one row per input: ``path``, ``output``, ``status``
        ("analysed", "skipped": already complete, "failed": see ``error``), ``frames``,
        ``seconds`` (the last record's time), ``wall`` and ``cpu`` (s) and ``worker``.
    :raises ValueError: two inputs would write the same output.
    """
    import pandas as pd
    from distributed import get_client

    client = client or get_client()
    paths = [os.fspath(p) for p in paths]
    targets = [output_path(p, output) for p in paths]
    seen: dict[Path, str] = {}
    for path, target in zip(paths, targets):
        if target in seen:
            raise ValueError(f"{path} and {seen[target]} would both write {target}: give inputs distinct names")
        seen[target] = path
    Path(output).mkdir(parents=True, exist_ok=True)

    rows: list[dict[str, Any] | None] = [None] * len(paths)
    todo = []
    for i, (path, target) in enumerate(zip(paths, targets)):
        if not overwrite and _complete(path, target, options):
            rows[i] = {"path": path, "output": str(target), "status": "skipped", "frames": 0, "seconds": 0.0,
                       "error": "", "worker": ""}
        else:
            todo.append(i)
    futures = client.map(_analyze_one, [paths[i] for i in todo], [str(targets[i]) for i in todo],
                         [options] * len(todo), pure=False, retries=retries)
    for i, row in zip(todo, client.gather(futures)):
        rows[i] = row
    # A task whose worker was killed while writing leaves its temporary file: every task has
    # now ended, so what is left of this call's targets is debris.
    for i in todo:
        for debris in targets[i].parent.glob(f".{targets[i].name}.*.partial"):
            debris.unlink(missing_ok=True)
    return pd.DataFrame(rows, columns=["path", "output", "status", "frames", "seconds", "wall", "cpu", "error",
                                       "worker"])


def read_output(path: str | os.PathLike):
    """An output of :func:`analyze_files` as the DataFrame :func:`soundcompass.analyze_file` gave."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    return table.to_pandas(types_mapper=lambda t: pd.ArrowDtype(t) if pa.types.is_list(t) else None)
