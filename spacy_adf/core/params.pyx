# cython: language_level=3
"""Grouped weight storage and sparse mini-batch gradients, shared by the
CRF and MaxEnt cores and by the optimizers that update them."""
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset

import numpy


cdef void* resized(void* p, size_t nbytes, str what) except NULL:
    """PyMem_Realloc(p, nbytes), raising MemoryError (naming `what`) where it fails."""
    cdef void* q = PyMem_Realloc(p, nbytes)
    if q == NULL:
        raise MemoryError(f"could not allocate {nbytes} bytes for {what}")
    return q


def weights_or_zeros(weights, Py_ssize_t n_weights, str layout):
    """The float32, C-contiguous weight vector a model binds: zeros if
    weights is None, else `weights` checked to have n_weights entries
    (`layout` names what fixes that number, for the error message)."""
    if weights is None:
        return numpy.zeros(n_weights, dtype=numpy.float32)
    weights = numpy.ascontiguousarray(weights, dtype=numpy.float32)
    if weights.shape != (n_weights,):
        raise ValueError(f"weights have shape {weights.shape}, {layout} needs ({n_weights},)")
    return weights


cdef class GroupedParams:
    cdef void _bind(self, object weights, Py_ssize_t head_size, object ptr) except *:
        cdef float[::1] wv = weights
        cdef const int64_t[::1] p = ptr
        if p.shape[0] < 1 or p[0] != 0:
            raise ValueError("the group pointer array must start at 0")
        if head_size + p[p.shape[0] - 1] != wv.shape[0]:
            raise ValueError(
                f"group layout covers {head_size + p[p.shape[0] - 1]} weights, "
                f"the weight array has {wv.shape[0]}"
            )
        self.weights = weights
        self._ptr_arr = ptr
        self.w = &wv[0] if wv.shape[0] > 0 else NULL
        self.n_weights = wv.shape[0]
        self.head_size = head_size
        self.ptr = &p[0]
        self.n_groups = <int>p.shape[0]  # head group 0 plus one per pointer interval

    def set_weights(self, weights):
        """Replace the weight values (same shape), e.g. to swap in averages."""
        weights = numpy.ascontiguousarray(weights, dtype=numpy.float32)
        if weights.shape != self.weights.shape:
            raise ValueError(
                f"weight array has shape {weights.shape}, expected {self.weights.shape}"
            )
        self._bind(weights, self.head_size, self._ptr_arr)


cdef class SparseGrad:
    def __cinit__(self, GroupedParams params):
        self.params = params
        self.slots = <GradSlot*>resized(NULL, sizeof(GradSlot) * max(params.n_groups, 1), "the gradient slots")
        for i in range(params.n_groups):
            self.slots[i] = GradSlot(slot=-1, stamp=-1)
        self.reserve(64, 1024)  # the counts start at 0 (Cython zeroes C fields)

    def __dealloc__(self):
        PyMem_Free(self.slots)
        PyMem_Free(self.touched)
        PyMem_Free(self.offset)
        PyMem_Free(self.occ)
        PyMem_Free(self.values)

    cdef void begin_sample(self) noexcept nogil:
        self.sample_id += 1
        self.n_samples += 1

    cdef Py_ssize_t touch(self, int g) except -1 nogil:
        """Offset in `values` of group g's gradient block, created if needed.
        (An offset, not a pointer: creating a block may move `values`.)"""
        cdef int idx = self.slots[g].slot
        cdef Py_ssize_t s0, e0, size
        if idx < 0:
            group_range(self.params, g, &s0, &e0)
            size = e0 - s0
            if self.n_touched == self.cap_touched:
                with gil:
                    self.reserve(2 * self.cap_touched, self.cap_values)
            if self.n_values + size > self.cap_values:
                with gil:
                    self.reserve(self.cap_touched, max(2 * self.cap_values, self.n_values + size))
            idx = self.n_touched
            self.n_touched += 1
            self.slots[g].slot = idx
            self.touched[idx] = g
            self.offset[idx] = self.n_values
            self.occ[idx] = 0
            memset(&self.values[self.n_values], 0, sizeof(double) * size)
            self.n_values += size
        if self.slots[g].stamp != self.sample_id:
            self.slots[g].stamp = self.sample_id
            self.occ[idx] += 1
        return self.offset[idx]

    cdef int reserve(self, Py_ssize_t n_groups, Py_ssize_t n_values) except -1:
        """Room for n_groups touched groups and n_values gradient values, so
        that touch() never grows the buffers (and never needs the GIL) while a
        batch of that size is summed."""
        if n_groups > self.cap_touched:
            self.touched = <int32_t*>resized(self.touched, sizeof(int32_t) * n_groups, "the gradient slots")
            self.offset = <int64_t*>resized(self.offset, sizeof(int64_t) * n_groups, "the gradient slots")
            self.occ = <int32_t*>resized(self.occ, sizeof(int32_t) * n_groups, "the gradient slots")
            self.cap_touched = <int>n_groups
        if n_values > self.cap_values:
            self.values = <double*>resized(self.values, sizeof(double) * n_values, "the gradient values")
            self.cap_values = n_values
        return 0

    cdef void reset(self) noexcept nogil:
        cdef int i
        for i in range(self.n_touched):
            self.slots[self.touched[i]].slot = -1
        self.n_touched = 0
        self.n_values = 0
        self.n_samples = 0

    cpdef void clear(self):
        self.reset()

    cdef double sq_norm(self) noexcept nogil:
        cdef double s = 0.0
        cdef Py_ssize_t i
        for i in range(self.n_values):
            s += self.values[i] * self.values[i]
        return s

    def to_dense(self):
        """The gradient as a dense float64 vector over all weights (O(weights))."""
        out = numpy.zeros(self.params.n_weights, dtype=numpy.float64)
        cdef double[::1] o = out
        cdef Py_ssize_t s0, e0, j, k
        cdef int i, g
        for i in range(self.n_touched):
            g = self.touched[i]
            group_range(self.params, g, &s0, &e0)
            k = self.offset[i]
            for j in range(s0, e0):
                o[j] += self.values[k]
                k += 1
        return out

    @property
    def nbytes(self):
        """Bytes held: per-group slots plus the current batch's buffers."""
        return (self.params.n_groups * sizeof(GradSlot)
                + self.cap_touched * (2 * sizeof(int32_t) + sizeof(int64_t))
                + self.cap_values * sizeof(double))
