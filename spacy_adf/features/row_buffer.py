"""Rows of a 2-D array appended one block at a time into one growing
buffer.

Building a feature table hashes the whole training corpus into one (tokens x
templates) uint64 matrix. Collected as a list of per-sentence matrices and
stacked at the end, the matrix is in memory twice at that moment; grown in
place it is there once. Growth goes through `ndarray.resize`, i.e. realloc,
which for buffers this large moves pages (mremap) instead of copying them,
and pages reserved but not yet written are not resident, so growing by half
again costs no memory that is not used.
"""
import numpy


class RowBuffer:
    def __init__(self, width: int, dtype=numpy.uint64, capacity: int = 4096) -> None:
        self.width = int(width)
        self._data = numpy.empty((max(int(capacity), 1), self.width), dtype=dtype)
        self._n = 0

    def __len__(self) -> int:
        return self._n

    def append(self, rows: numpy.ndarray) -> None:
        rows = numpy.asarray(rows)
        if rows.ndim != 2 or rows.shape[1] != self.width:
            raise ValueError(f"rows of shape {rows.shape} do not fit a buffer of width {self.width}")
        n = self._n + rows.shape[0]
        if n > self._data.shape[0]:
            self._data.resize((max(n, self._data.shape[0] * 3 // 2), self.width), refcheck=False)
        self._data[self._n:n] = rows
        self._n = n

    def take(self) -> numpy.ndarray:
        """The rows as one C-contiguous array (the buffer is shrunk to them,
        in place, and handed over: the RowBuffer is empty afterwards)."""
        data, n = self._data, self._n
        self._data = numpy.empty((0, self.width), dtype=data.dtype)
        self._n = 0
        data.resize((n, self.width), refcheck=False)
        return data
