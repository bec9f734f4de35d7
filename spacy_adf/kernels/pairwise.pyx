# cython: language_level=3
"""Multi-class classification over the binary kernel classifiers (Kudo &
Matsumoto 2001, 2003 §5.1): one per pair of classes, one-against-one voting,
in C. Pair order, signs and the tie rule: docs/architecture.md, "Pairwise voting"."""
from cpython.ref cimport PyObject
from libc.stdint cimport int32_t, int64_t
from libc.stdlib cimport calloc, free, malloc

import numpy

from ..serialization.framed import pack, unpack
from .classifiers import load_classifier
from .csr import as_csr
from .classifiers cimport KernelClassifier, Scratch

FORMAT = "spacy_adf.kernels.pairwise"
VERSION = 1


def n_pairs(int n_classes) -> int:
    """K(K-1)/2: the number of binary classifiers of K classes."""
    return n_classes * (n_classes - 1) // 2


def class_pairs(int n_classes):
    """The (i, j) pairs, i < j, in the order of the binary classifiers."""
    return [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]


cdef class PairwiseClassifier:
    """K classes by one-against-one voting over K(K-1)/2 binary kernel
    classifiers of one form (PKB, PKI or PKE), one degree and one feature
    space (see the module docstring for pair order, signs and ties), built
    from the binary classifiers in `class_pairs` order.
    """
    FORMAT = FORMAT

    def __init__(self, classifiers, int n_classes):
        classifiers = tuple(classifiers)
        if n_classes < 2:
            raise ValueError("a pairwise classifier needs at least two classes")
        if len(classifiers) != n_pairs(n_classes):
            raise ValueError(f"{n_classes} classes need {n_pairs(n_classes)} pairwise classifiers, "
                             f"got {len(classifiers)}")
        kinds = {type(c).__name__.lower() for c in classifiers}
        if any(not isinstance(c, KernelClassifier) for c in classifiers) or len(kinds) != 1:
            raise ValueError("the pairwise classifiers must all be PKB, all PKI or all PKE")
        degrees = {c.degree for c in classifiers}
        widths = {c.n_features for c in classifiers}
        if len(degrees) != 1 or len(widths) != 1:
            raise ValueError("the pairwise classifiers differ in degree or number of features")
        self.classifiers = classifiers
        self.n_classes = n_classes
        self.kind = kinds.pop()
        self.degree = degrees.pop()
        self.n_features = widths.pop()
        cdef Py_ssize_t p, m = len(classifiers)
        self._clfs = <PyObject**>malloc(m * sizeof(PyObject*))
        self._pair_i = <int32_t*>malloc(m * sizeof(int32_t))
        self._pair_j = <int32_t*>malloc(m * sizeof(int32_t))
        if self._clfs == NULL or self._pair_i == NULL or self._pair_j == NULL:
            raise MemoryError()
        for p, (i, j) in enumerate(class_pairs(n_classes)):
            self._clfs[p] = <PyObject*>classifiers[p]  # kept alive by self.classifiers
            self._pair_i[p] = i
            self._pair_j[p] = j

    def __dealloc__(self):
        free(self._clfs)
        free(self._pair_i)
        free(self._pair_j)

    cdef int alloc_scratch(self, PairScratch* s, Py_ssize_t max_len) except -1:
        cdef Py_ssize_t p, m = len(self.classifiers)
        s.n_pairs = 0
        s.pairs = <Scratch*>calloc(m + 1, sizeof(Scratch))
        s.votes = <int32_t*>calloc(self.n_classes, sizeof(int32_t))
        s.margin = <double*>calloc(self.n_classes, sizeof(double))
        if s.pairs == NULL or s.votes == NULL or s.margin == NULL:
            self.release_scratch(s)
            raise MemoryError()
        try:
            for p in range(m):
                (<KernelClassifier>self.classifiers[p]).alloc_scratch(&s.pairs[p], max_len)
                s.n_pairs = p + 1
        except BaseException:
            self.release_scratch(s)
            raise
        return 0

    cdef void release_scratch(self, PairScratch* s) noexcept:
        cdef Py_ssize_t p
        if s.pairs != NULL:
            for p in range(s.n_pairs):
                (<KernelClassifier>self.classifiers[p]).release_scratch(&s.pairs[p])
        free(s.pairs)
        free(s.votes)
        free(s.margin)

    cdef int32_t decide_ids(self, const int32_t* x, Py_ssize_t n, PairScratch* s) noexcept nogil:
        cdef Py_ssize_t p, m = self.n_classes * (self.n_classes - 1) // 2
        cdef int32_t c, best = 0
        cdef double f
        for c in range(self.n_classes):
            s.votes[c] = 0
            s.margin[c] = 0.0
        for p in range(m):
            f = (<KernelClassifier>self._clfs[p]).decide_ids(x, n, &s.pairs[p])
            if f > 0:
                s.votes[self._pair_i[p]] += 1
            elif f < 0:
                s.votes[self._pair_j[p]] += 1
            s.margin[self._pair_i[p]] += f
            s.margin[self._pair_j[p]] -= f
        for c in range(1, self.n_classes):  # strict >: the lowest index wins a full tie
            if s.votes[c] > s.votes[best] or (s.votes[c] == s.votes[best] and s.margin[c] > s.margin[best]):
                best = c
        return best

    def votes(self, X):
        """(classes int32 (n,), votes int32 (n, K), margins float64 (n, K))
        of the rows of a CSR matrix (or (indptr, indices))."""
        indptr, indices = as_csr(X)
        cdef const int64_t[::1] p = indptr
        cdef const int32_t[::1] ix = indices
        cdef Py_ssize_t i, c, n = p.shape[0] - 1, k = self.n_classes
        classes = numpy.zeros(n, dtype=numpy.int32)
        votes = numpy.zeros((n, k), dtype=numpy.int32)
        margins = numpy.zeros((n, k), dtype=numpy.float64)
        cdef int32_t[::1] o = classes
        cdef int32_t[:, ::1] v = votes
        cdef double[:, ::1] mg = margins
        cdef PairScratch s
        max_len = int(numpy.diff(indptr).max()) if n else 0
        self.alloc_scratch(&s, max_len)
        try:
            with nogil:
                for i in range(n):
                    o[i] = self.decide_ids(&ix[p[i]] if p[i + 1] > p[i] else NULL, p[i + 1] - p[i], &s)
                    for c in range(k):
                        v[i, c] = s.votes[c]
                        mg[i, c] = s.margin[c]
        finally:
            self.release_scratch(&s)
        return classes, votes, margins

    @property
    def sigma(self):
        """PKE's sigma (None for the exact forms)."""
        return self.classifiers[0].sigma if self.kind == "pke" else None

    @property
    def xi(self):
        return self.classifiers[0].xi if self.kind == "pke" else None

    @property
    def n_kept(self) -> int:
        """|Omega| summed over the pairs (PKE); 0 for PKB / PKI."""
        return sum(c.n_kept for c in self.classifiers) if self.kind == "pke" else 0

    @property
    def nbytes(self) -> int:
        return sum(c.nbytes for c in self.classifiers)

    def to_bytes(self) -> bytes:
        meta = {"n_classes": self.n_classes, "kind": self.kind, "degree": self.degree,
                "n_features": self.n_features, "classifiers": [c.to_bytes() for c in self.classifiers]}
        return pack(FORMAT, VERSION, {}, meta)

    @classmethod
    def from_bytes(cls, data):
        _, meta = unpack(data, FORMAT, VERSION, {})
        try:
            n_classes, parts = int(meta["n_classes"]), meta["classifiers"]
            kind, degree, width = meta["kind"], int(meta["degree"]), int(meta["n_features"])
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"the pairwise classifier data is incomplete ({e!r})") from None
        if not isinstance(parts, list) or not all(isinstance(b, bytes) for b in parts):
            raise ValueError("the pairwise classifier data lacks its binary classifiers")
        obj = cls([load_classifier(b) for b in parts], n_classes)
        if obj.kind != kind or obj.degree != degree or obj.n_features != width:
            raise ValueError("the pairwise classifier's binary classifiers do not match its header")
        return obj

    def __reduce__(self):
        return (PairwiseClassifier.from_bytes, (self.to_bytes(),))

