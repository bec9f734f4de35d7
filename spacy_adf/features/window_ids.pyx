# cython: language_level=3
"""The static window features of the pairwise-SVM tagger (`models/kernel_tagger.py`
has their Python reference) as ids: each group's value at each offset d in
-window..+window, ``f"{group}{d:+d}={value}"`` ("w-1=the"), "<BOS>" / "<EOS>"
outside the sentence; one hash-map lookup per token and group.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t

import numpy

from preshed.maps cimport PreshMap, map_get
from spacy.strings import hash_string

from .chars cimport check_bounds

# feature groups and their string prefixes
GROUP_PREFIX = {"words": "w", "pos": "p"}
BOS = "<BOS>"
EOS = "<EOS>"


def feature_name(str prefix, int offset, str value) -> str:
    """The feature string of a value at a relative position ("w-1=the")."""
    return f"{prefix}{offset:+d}={value}"


cdef class WindowTable:
    """Ids of the static window features of a vocabulary (``ids``: string -> id), for `groups`."""
    cdef readonly int window
    cdef readonly tuple groups
    cdef list _maps          # per group: PreshMap value hash -> row + 1
    cdef list _rows          # per group: int32 (n_values, 2 window + 1)
    cdef readonly object pad # int32 (n_groups, 2, 2 window + 1): <BOS>, <EOS> ids per offset

    def __init__(self, ids, groups=("words", "pos"), int window=2):
        if window < 0:
            raise ValueError("window must be >= 0")
        groups = tuple(groups)
        unknown = [g for g in groups if g not in GROUP_PREFIX]
        if unknown or not groups or len(set(groups)) != len(groups):
            raise ValueError(f"feature groups must be distinct names from {sorted(GROUP_PREFIX)}, "
                             f"not {list(groups)!r}")
        self.window = window
        self.groups = groups
        width = 2 * window + 1
        prefix_group = {GROUP_PREFIX[g]: k for k, g in enumerate(groups)}
        values = [dict() for _ in groups]  # value -> {offset: id}
        self.pad = numpy.full((len(groups), 2, width), -1, dtype=numpy.int32)
        for name, fid in ids.items():
            head, eq, value = name.partition("=")
            if not eq or len(head) < 3 or head[0] not in prefix_group or head[1] not in "+-":
                continue
            try:
                d = int(head[1:])
            except ValueError:
                continue
            if not -window <= d <= window:
                continue
            g = prefix_group[head[0]]
            if value in (BOS, EOS):
                self.pad[g, (BOS, EOS).index(value), d + window] = fid
            values[g].setdefault(value, {})[d] = fid
        self._maps = []
        self._rows = []
        cdef PreshMap table
        cdef uint64_t key
        for g in range(len(groups)):
            table = PreshMap()
            rows = numpy.full((len(values[g]) + 1, width), -1, dtype=numpy.int32)
            for r, (value, by_offset) in enumerate(values[g].items()):
                key = hash_string(value)
                if key < 2:  # preshed reserves keys 0 and 1 (never a real string hash)
                    continue
                table.set(key, <void*><size_t>(r + 1))
                for d, fid in by_offset.items():
                    rows[r + 1, d + window] = fid
            self._maps.append(table)
            self._rows.append(rows)

    @property
    def width(self) -> int:
        """Columns of `static_ids`: groups x positions."""
        return len(self.groups) * (2 * self.window + 1)

    def static_ids(self, values, sent_off):
        """(n_tokens, width) int32 ids (-1: unknown), column g * (2 window + 1) + d + window: group g at
        offset d, of values: (n_tokens, n_groups) uint64 string hashes; sent_off: sentence offsets."""
        cdef const uint64_t[:, ::1] v = numpy.ascontiguousarray(values, dtype=numpy.uint64)
        cdef const int64_t[::1] so = numpy.ascontiguousarray(sent_off, dtype=numpy.int64)
        cdef Py_ssize_t n = v.shape[0], n_groups = len(self.groups), w = self.window
        cdef Py_ssize_t width = 2 * w + 1, g, i, s, k, j
        cdef int64_t start, end
        if v.shape[1] != n_groups:
            raise ValueError(f"static_ids: values need {n_groups} columns")
        check_bounds(so, n, "static_ids: sentence offsets")
        out = numpy.empty((n, n_groups * width), dtype=numpy.int32)
        cdef int32_t[:, ::1] o = out
        cdef int64_t[::1] ro = numpy.empty(n, dtype=numpy.int64)
        cdef const int32_t[:, ::1] rows
        cdef const int32_t[:, :, ::1] pad = self.pad
        cdef PreshMap table
        for g in range(n_groups):
            table = self._maps[g]
            rows = self._rows[g]
            with nogil:
                for i in range(n):  # row 0: unknown value (all -1)
                    ro[i] = <int64_t><size_t>map_get(table.c_map, v[i, g]) if v[i, g] >= 2 else 0
                for s in range(so.shape[0] - 1):
                    start = so[s]
                    end = so[s + 1]
                    for i in range(start, end):
                        for k in range(width):
                            j = i + k - w
                            if j < start:
                                o[i, g * width + k] = pad[g, 0, k]
                            elif j >= end:
                                o[i, g * width + k] = pad[g, 1, k]
                            else:
                                o[i, g * width + k] = rows[ro[j], k]
        return out
