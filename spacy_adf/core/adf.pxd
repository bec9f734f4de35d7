from libc.stdint cimport int32_t, int64_t

from .params cimport GroupedParams, SparseGrad


cdef struct GroupState:
    float rate       # gamma_k / G (clamped >= 1e-30 to stay a normal float)
    int32_t count    # samples of the current window containing the group
    int32_t last_u   # update up to which the group is caught up


cdef class SparseADF:
    cdef readonly GroupedParams params
    cdef readonly double c
    cdef readonly double alpha
    cdef readonly double beta
    cdef readonly double inv_n_sigma2   # per-sample L2 coefficient 1 / (n sigma^2)
    cdef readonly int64_t window        # q, in samples
    cdef readonly double grad_clip
    cdef readonly bint use_averages
    cdef readonly double G              # global rate multiplier (the uniform alpha decay)
    cdef readonly int32_t n_updates     # U
    cdef readonly int64_t n_samples
    cdef readonly double C              # cumulative sum of G * batch size
    cdef readonly int64_t window_fill   # samples in the current window
    cdef readonly int n_windows
    cdef GroupState* groups
    cdef float* avg                     # per weight running mean over updates, if use_averages
    cdef int32_t* wlist                 # groups with count > 0
    cdef int n_wlist
    cdef int cap_wlist
    # segments of updates with a constant per-update increment of C
    cdef int32_t* seg_start
    cdef double* seg_cbase
    cdef double* seg_dc
    cdef int n_seg
    cdef public long long sink  # keeps the gather loads of the training loop alive
    cdef int cap_seg

    cdef void catch_up(self, int g, int32_t u_now) noexcept nogil
    cdef int step(self, SparseGrad grad) except -1 nogil
    cdef void end_window(self) noexcept nogil
    cdef int reserve_steps(self, int n_updates, Py_ssize_t n_groups) except -1
    cdef double _C_at(self, int seg, int32_t u) noexcept nogil
    cdef int _seg_of(self, int32_t u) noexcept nogil
