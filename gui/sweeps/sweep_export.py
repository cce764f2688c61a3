"""The sweep panel's exports: the map as a PNG and the measured runs as a Parquet table, each
written under a temporary name in the target folder and renamed (never half a file), any failure
one line for the panel's status."""
from __future__ import annotations

import os
import tempfile

import numpy as np


def _atomic(path: str, suffix: str, write) -> str | None:
    """`write(tmp)` then rename to `path`; None, or why not in one line."""
    directory = os.path.dirname(os.path.abspath(path)) or "."
    try:
        fd, tmp = tempfile.mkstemp(prefix=".eomlab-", suffix=suffix, dir=directory)
        os.close(fd)
    except OSError as err:
        return f"{path}: cannot write there ({err.strerror or err})"
    try:
        problem = write(tmp)
        if problem:
            return f"{path}: {problem}"
        os.replace(tmp, path)
        return None
    except (OSError, ImportError, ValueError) as err:
        return f"{path}: {str(err).splitlines()[0] if str(err) else type(err).__name__}"
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def write_png(widget, path: str) -> str | None:
    """The widget (the map with its colour bar and axes) as drawn now."""
    return _atomic(path, ".png", lambda tmp: None if widget.grab().save(tmp, "PNG") else "the picture was not written")


def write_parquet(chunks: list[dict], path: str) -> str | None:
    """The chunks' columns as one table in run order (pyarrow, as `eomlab sweep -o` writes)."""
    if not chunks:
        return "nothing measured yet"

    def write(tmp: str) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        names = list(chunks[0])
        columns = {n: np.concatenate([np.asarray(c[n]) for c in chunks]) for n in names}
        order = np.argsort(columns["run"], kind="stable")
        table = pa.table({n: pa.array(v[order].astype(str) if v.dtype == object else v[order]) for n, v in columns.items()})
        pq.write_table(table, tmp)

    return _atomic(path, ".parquet", write)
