from libc.stdint cimport int32_t, int64_t


cdef class GroupedParams:
    """Flat float32 weights partitioned into groups (one group per feature).

    Group 0 is the head block [0, head_size) (e.g. CRF label transitions).
    Group g >= 1 owns two ranges: [off0 + ptr0[g-1], off0 + ptr0[g]) and
    [off1 + ptr1[g-1], off1 + ptr1[g]) (e.g. a CRF attribute's state and
    edge weights). Optimizers work per group, so an update costs what the
    example touches.
    """
    cdef float* w
    cdef readonly Py_ssize_t n_weights
    cdef readonly int n_groups
    cdef readonly Py_ssize_t head_size
    cdef Py_ssize_t off0
    cdef Py_ssize_t off1
    cdef const int64_t* ptr0
    cdef const int64_t* ptr1
    cdef public object weights  # numpy float32 array that owns self.w
    cdef object _ptr0_arr
    cdef object _ptr1_arr

    cdef void _bind(self, object weights, Py_ssize_t head_size,
                    Py_ssize_t off0, object ptr0, Py_ssize_t off1, object ptr1) except *


cdef inline void group_ranges(GroupedParams p, int g, Py_ssize_t* s0, Py_ssize_t* e0,
                              Py_ssize_t* s1, Py_ssize_t* e1) noexcept nogil:
    if g == 0:
        s0[0] = 0
        e0[0] = p.head_size
        s1[0] = 0
        e1[0] = 0
    else:
        s0[0] = p.off0 + p.ptr0[g - 1]
        e0[0] = p.off0 + p.ptr0[g]
        s1[0] = p.off1 + p.ptr1[g - 1]
        e1[0] = p.off1 + p.ptr1[g]


cdef class SparseGrad:
    """Gradient of a mini-batch over the groups it touched.

    Each touched group gets a block of doubles laid out like the group's
    weights (range 0 then range 1). `occ` counts in how many samples of the
    batch the group occurred (ADF's frequency statistic).
    """
    cdef readonly GroupedParams params
    cdef int32_t* slot         # per group: index into touched, or -1
    cdef int32_t* stamp        # per group: last sample id that counted it
    cdef int32_t* touched
    cdef int64_t* offset       # per touched index: start in values
    cdef int32_t* occ          # per touched index: samples containing group
    cdef double* values
    cdef readonly int n_touched
    cdef int cap_touched
    cdef Py_ssize_t n_values
    cdef Py_ssize_t cap_values
    cdef readonly int n_samples
    cdef int32_t sample_id

    cdef Py_ssize_t touch(self, int g) except -1 nogil
    cdef void begin_sample(self) noexcept nogil
    cpdef void clear(self)
