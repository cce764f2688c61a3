"""Where a sweep's results go, chunk by chunk: a Parquet dataset on disk, or memory.

On disk a sweep to ``flips.parquet`` writes into ``flips.parquet.partial/``: ``_sweep.json`` (what
the sweep is, to check a resume against) and one ``part-NNNNN.parquet`` per finished chunk,
each written under a hidden temporary name and renamed when complete. Only when every chunk is
there does ``_SUCCESS`` appear and the folder take its final name — so a folder called
``flips.parquet`` is always a finished sweep, and an interrupted one loses only its chunks in
flight. pandas (``pd.read_parquet("flips.parquet")``) and pyarrow read the folder as one table.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile

import numpy as np

from eomlab.engine.model import ModelError

DESCRIPTION = "_sweep.json"
SUCCESS = "_SUCCESS"


def _part_name(chunk: int) -> str:
    return f"part-{chunk:05d}.parquet"


def _table(columns: dict):
    import pyarrow as pa

    arrays = {}
    for name, values in columns.items():
        values = np.asarray(values)
        arrays[name] = pa.array(values.astype(str) if values.dtype == object else values)
    return pa.table(arrays)


class MemoryStore:
    """Results kept in memory (the Python API without an output path)."""

    def __init__(self):
        self.parts: dict[int, dict] = {}
        self.chunk_size = None

    def done(self) -> set[int]:
        return set(self.parts)

    def write(self, chunk: int, columns: dict) -> None:
        self.parts[chunk] = columns

    def finish(self):
        import pandas as pd

        frames = [pd.DataFrame(self.parts[k]) for k in sorted(self.parts)]
        return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


class ParquetStore:
    """A Parquet dataset folder written chunk by chunk (see the module's docstring)."""

    def __init__(self, path: str, sweep, chunk_size: int, resume: bool = False, overwrite: bool = False):
        self.path = os.path.abspath(path)
        self.partial = self.path + ".partial"
        self.sweep = sweep
        if os.path.exists(self.path) and not overwrite:
            raise ModelError("-o", f"{path} exists (a finished sweep); choose another name or --overwrite")
        description = {"fingerprint": sweep.fingerprint(), "runs": sweep.n_runs, "chunk_size": chunk_size,
                       "columns": list(sweep.columns), "model": sweep.model_source or sweep.model.name,
                       "vary": [v.name for v in sweep.varies], "measures": [m.text for m in sweep.measures],
                       "mode": sweep.mode, "t_end": sweep.t_end}
        if os.path.isdir(self.partial):
            if resume:
                previous = self._description()
                if previous.get("fingerprint") != description["fingerprint"]:
                    raise ModelError("--resume", f"the interrupted sweep in {self.partial} is a different sweep "
                                     "(model, varied values, measures or t_end differ)")
                self.chunk_size = int(previous["chunk_size"])
                return
            if not overwrite:
                raise ModelError("-o", f"an interrupted sweep is in {self.partial}: --resume finishes it, "
                                 "--overwrite starts again")
            shutil.rmtree(self.partial)
        self.chunk_size = chunk_size
        parent = os.path.dirname(self.path)
        if not os.path.isdir(parent):
            raise ModelError("-o", f"no folder {parent}")
        try:
            os.mkdir(self.partial)
            self._write_atomic(DESCRIPTION, json.dumps(description, indent=1).encode())
        except OSError as err:
            raise ModelError("-o", f"cannot write {self.partial}: {err.strerror or err}") from None

    def _description(self) -> dict:
        try:
            with open(os.path.join(self.partial, DESCRIPTION), encoding="utf-8") as fh:
                return json.load(fh)
        except (OSError, ValueError):
            return {}

    def _write_atomic(self, name: str, data: bytes) -> None:
        fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=self.partial)
        os.chmod(tmp, 0o644)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, os.path.join(self.partial, name))
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise

    def done(self) -> set[int]:
        return {int(f[5:10]) for f in os.listdir(self.partial) if f.startswith("part-") and f.endswith(".parquet")}

    def write(self, chunk: int, columns: dict) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        sink = pa.BufferOutputStream()
        pq.write_table(_table(columns), sink)
        self._write_atomic(_part_name(chunk), sink.getvalue().to_pybytes())

    def finish(self):
        """All chunks are there: mark the folder finished and give it its final name."""
        self._write_atomic(SUCCESS, b"")
        if os.path.exists(self.path):
            shutil.rmtree(self.path) if os.path.isdir(self.path) else os.unlink(self.path)
        os.replace(self.partial, self.path)
        return read_result(self.path)


def read_result(path: str):
    """A finished sweep's table, rows in run order."""
    import pandas as pd

    if not os.path.exists(os.path.join(path, SUCCESS)):
        raise ModelError(path, "not a finished sweep (no _SUCCESS marker)")
    frame = pd.read_parquet(path)
    return frame.sort_values("run", ignore_index=True)
