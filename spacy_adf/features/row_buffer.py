"""Rows appended block by block into one buffer grown in place (realloc), so
the corpus' hash matrix is in memory once, not also as per-sentence pieces."""
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
        """The rows as one C-contiguous array, handed over (the RowBuffer is empty afterwards)."""
        data, n = self._data, self._n
        self._data = numpy.empty((0, self.width), dtype=data.dtype)
        self._n = 0
        data.resize((n, self.width), refcheck=False)
        return data
