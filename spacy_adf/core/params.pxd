from libc.stdint cimport int32_t, int64_t


cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define SPACY_ADF_PREFETCH(p) __builtin_prefetch((const void*)(p))
    #else
    #define SPACY_ADF_PREFETCH(p) ((void)0)
    #endif
    """
    void prefetch "SPACY_ADF_PREFETCH"(const void* p) noexcept nogil


cdef class GroupedParams:
    """Flat float32 weights partitioned into groups (one per feature, updated
    per group): group 0 is the head block [0, head_size) (e.g. CRF transitions),
    group g >= 1 the block [head_size + ptr[g-1], head_size + ptr[g])."""
    cdef float* w
    cdef readonly Py_ssize_t n_weights
    cdef readonly int n_groups
    cdef readonly Py_ssize_t head_size
    cdef const int64_t* ptr
    cdef public object weights  # numpy float32 array that owns self.w
    cdef object _ptr_arr

    cdef void _bind(self, object weights, Py_ssize_t head_size, object ptr) except *


cdef inline void group_range(GroupedParams p, int g, Py_ssize_t* start, Py_ssize_t* end) noexcept nogil:
    if g == 0:
        start[0] = 0
        end[0] = p.head_size
    else:
        start[0] = p.head_size + p.ptr[g - 1]
        end[0] = p.head_size + p.ptr[g]


cdef void* resized(void* p, size_t nbytes, str what) except NULL


cdef struct GradSlot:
    int32_t slot    # index into touched, or -1
    int32_t stamp   # last sample id that counted this group


cdef class SparseGrad:
    """Gradient of a mini-batch over the groups it touched: a block of doubles
    per touched group, laid out like its weights; `occ` counts the samples of
    the batch the group occurred in (ADF's frequency statistic)."""
    cdef readonly GroupedParams params
    cdef GradSlot* slots       # per group
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
    cdef int reserve(self, Py_ssize_t n_groups, Py_ssize_t n_values) except -1
    cdef void reset(self) noexcept nogil
    cdef double sq_norm(self) noexcept nogil
    cpdef void clear(self)
