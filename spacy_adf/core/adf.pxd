from libc.stdint cimport int32_t, int64_t

from .params cimport GroupedParams, SparseGrad


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
    cdef double* rate                   # per group: gamma_k / G
    cdef int32_t* count                 # per group: samples of this window containing it
    cdef int32_t* last_u                # per group: update up to which it is caught up
    cdef double* avg_sum                # per weight, if use_averages
    cdef int32_t* wlist                 # groups with count > 0
    cdef int n_wlist
    cdef int cap_wlist
    # segments of updates with a constant per-update increment of C
    cdef int32_t* seg_start
    cdef double* seg_cbase
    cdef double* seg_dc
    cdef int n_seg
    cdef int cap_seg

    cdef void catch_up(self, int g, int32_t u_now) noexcept nogil
    cdef double _C_at(self, int seg, int32_t u) noexcept nogil
    cdef int _seg_of(self, int32_t u) noexcept nogil
