"""Sample tables written to files as they are produced: CSV (the one CSV writer), npz, parquet.

Every writer takes the columns first, then batches of rows (2-D arrays, one row per sample) as they
come, and keeps none of them in memory. A file path gets a temporary file beside it that is renamed
over the path only when the writer is closed, so the path holds a whole table or nothing; a failed
run that is closed keeps the samples it had. CSV values are ``repr(float)``: the shortest text that
reads back as the same double (``float(text) == value`` bit for bit).

>>> import io, numpy as np
>>> out = io.StringIO()
>>> with CsvWriter(out, ["t", "x"]) as csv:
...     csv.write(np.array([[0.0, 0.1], [0.5, 1 / 3]]))
>>> print(out.getvalue(), end="")
t,x
0.0,0.1
0.5,0.3333333333333333
"""
from __future__ import annotations

import os
import tempfile
import zipfile
from typing import IO, Sequence

import numpy as np

FORMATS = ("csv", "npz", "parquet")


def _temporary_beside(path: str) -> str:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".eomlab-", suffix=".tmp", dir=directory)
    os.close(fd)
    return tmp


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


class SampleWriter:
    """Base: columns, row batches, atomic rename on close, removal on abort; a context manager
    that closes on success and aborts on an exception."""

    def __init__(self, columns: Sequence[str]):
        self.columns = list(columns)
        self.rows_written = 0

    def write(self, rows: np.ndarray) -> None:
        rows = np.asarray(rows, dtype=float)
        if rows.size:
            rows = rows.reshape(-1, len(self.columns))
            self._write(rows)
            self.rows_written += len(rows)

    def _write(self, rows: np.ndarray) -> None:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def abort(self) -> None:
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, kind, error, trace):
        if kind is None:
            self.close()
        else:
            self.abort()
        return False


class CsvWriter(SampleWriter):
    """CSV with a header line; to a path (atomically) or to an open text stream (standard output)."""

    def __init__(self, target: str | os.PathLike | IO[str], columns: Sequence[str]):
        super().__init__(columns)
        if isinstance(target, (str, os.PathLike)):
            self.path = os.fspath(target)
            self._tmp = _temporary_beside(self.path)
            self._out = open(self._tmp, "w", encoding="utf-8", newline="")
        else:
            self.path, self._tmp, self._out = None, None, target
        self._out.write(",".join(self.columns) + "\n")

    def _write(self, rows: np.ndarray) -> None:
        # tolist() gives Python floats, whose repr is the shortest round-trip text
        self._out.write("".join(",".join(map(repr, row)) + "\n" for row in rows.tolist()))

    def close(self) -> None:
        if self._tmp is None:
            self._out.flush()
            return
        self._out.flush()
        os.fsync(self._out.fileno())
        self._out.close()
        os.replace(self._tmp, self.path)
        self._tmp = None

    def abort(self) -> None:
        if self._tmp is not None:
            self._out.close()
            _remove(self._tmp)
            self._tmp = None


class NpzWriter(SampleWriter):
    """numpy's npz: one array per column, named as the column (``np.load(path)["t"]``).

    Rows go to a raw temporary file as they come; closing copies them column by column into the
    archive, so memory holds one column at most.
    """

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]):
        super().__init__(columns)
        self.path = os.fspath(path)
        self._raw_path = _temporary_beside(self.path)
        self._raw = open(self._raw_path, "wb")

    def _write(self, rows: np.ndarray) -> None:
        self._raw.write(np.ascontiguousarray(rows, dtype="<f8").tobytes())

    def close(self) -> None:
        self._raw.close()
        tmp = _temporary_beside(self.path)
        try:
            shape = (self.rows_written, len(self.columns))
            table = np.memmap(self._raw_path, dtype="<f8", mode="r", shape=shape) if self.rows_written else \
                np.zeros(shape)
            with zipfile.ZipFile(tmp, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as archive:
                for k, name in enumerate(self.columns):
                    with archive.open(f"{name}.npy", "w", force_zip64=True) as member:
                        np.lib.format.write_array(member, np.array(table[:, k]), allow_pickle=False)
            del table
            os.replace(tmp, self.path)
        except BaseException:
            _remove(tmp)
            raise
        finally:
            _remove(self._raw_path)

    def abort(self) -> None:
        self._raw.close()
        _remove(self._raw_path)


class ParquetWriter(SampleWriter):
    """Apache Parquet through pyarrow (optional): one row group per batch, one float column each."""

    def __init__(self, path: str | os.PathLike, columns: Sequence[str]):
        super().__init__(columns)
        pa, pq = pyarrow_modules()
        self._pa = pa
        self.path = os.fspath(path)
        self._tmp = _temporary_beside(self.path)
        self._schema = pa.schema([(name, pa.float64()) for name in self.columns])
        self._writer = pq.ParquetWriter(self._tmp, self._schema)

    def _write(self, rows: np.ndarray) -> None:
        arrays = [self._pa.array(np.ascontiguousarray(rows[:, k])) for k in range(len(self.columns))]
        self._writer.write_table(self._pa.Table.from_arrays(arrays, schema=self._schema))

    def close(self) -> None:
        self._writer.close()
        os.replace(self._tmp, self.path)

    def abort(self) -> None:
        self._writer.close()
        _remove(self._tmp)


class MissingPackage(ImportError):
    """An optional package a feature needs is not installed (the message says what to install)."""


def pyarrow_modules():
    """(pyarrow, pyarrow.parquet), or MissingPackage with a one-line message."""
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise MissingPackage("parquet output needs pyarrow: pip install pyarrow") from None
    return pyarrow, pyarrow.parquet


def open_writer(fmt: str, target, columns: Sequence[str]) -> SampleWriter:
    """A writer for `fmt` ('csv', 'npz' or 'parquet'); only CSV can go to a stream."""
    if fmt == "csv":
        return CsvWriter(target, columns)
    if not isinstance(target, (str, os.PathLike)):
        raise ValueError(f"{fmt} output needs a file name")
    return NpzWriter(target, columns) if fmt == "npz" else ParquetWriter(target, columns)
