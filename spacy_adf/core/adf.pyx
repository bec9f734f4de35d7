# cython: language_level=3
"""Sparse ADF (Sun et al. 2014): per-feature learning rates decayed by feature
frequency, with lazy L2 decay and averaging that stay exact, at a cost per step
proportional to the groups touched (docs/architecture.md, "The numeric core")."""
from cpython.mem cimport PyMem_Free
from libc.math cimport exp, expm1, sqrt
from libc.stdint cimport int32_t, int64_t
from libc.string cimport memset

import numpy

from .params cimport GroupedParams, SparseGrad, group_range, resized


cdef inline double _decay(double x) noexcept nogil:
    """exp(-x) for x >= 0; the series is exact to double precision for the
    tiny per-step L2 exponents (x < 1e-4), and much cheaper than exp()."""
    if x < 1e-4:
        return 1.0 - x + 0.5 * x * x
    return exp(-x)


cdef class SparseADF:
    def __init__(self, GroupedParams params, *, double c, double alpha=0.995, double beta=0.6,
                 int64_t window, double inv_n_sigma2=0.0, double grad_clip=0.0,
                 bint use_averages=False):
        if not (0.0 < beta <= alpha <= 1.0):
            raise ValueError(f"ADF needs 0 < beta <= alpha <= 1, got alpha={alpha}, beta={beta}")
        if c <= 0.0:
            raise ValueError(f"ADF learn_rate (c) must be positive, got {c}")
        if window < 1:
            raise ValueError(f"ADF window must be at least one sample, got {window}")
        if inv_n_sigma2 < 0.0:
            raise ValueError("the L2 coefficient must be non-negative")
        self.params = params
        self.c = c
        self.alpha = alpha
        self.beta = beta
        self.window = window
        self.inv_n_sigma2 = inv_n_sigma2
        self.grad_clip = grad_clip
        self.use_averages = use_averages
        self.G = 1.0  # the counters, C and the list sizes start at 0 (Cython zeroes C fields)
        cdef int g
        self.groups = <GroupState*>resized(NULL, sizeof(GroupState) * max(params.n_groups, 1), "the ADF state")
        for g in range(params.n_groups):
            self.groups[g] = GroupState(rate=<float>c, count=0, last_u=0)
        if use_averages:
            self.avg = <float*>resized(NULL, sizeof(float) * max(params.n_weights, 1), "the ADF averages")
            memset(self.avg, 0, sizeof(float) * params.n_weights)
        self._grow_wlist(256)
        self._grow_segments(64)

    def __dealloc__(self):
        PyMem_Free(self.groups)
        PyMem_Free(self.avg)
        PyMem_Free(self.wlist)
        PyMem_Free(self.seg_start)
        PyMem_Free(self.seg_cbase)
        PyMem_Free(self.seg_dc)

    cdef int _seg_of(self, int32_t u) noexcept nogil:
        """Index of the segment holding update u (u >= 1): binary search."""
        cdef int lo = 0, hi = self.n_seg - 1, mid
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.seg_start[mid] <= u:
                lo = mid
            else:
                hi = mid - 1
        return lo

    cdef double _C_at(self, int seg, int32_t u) noexcept nogil:
        """C after update u, with u inside segment seg (C after update 0 is 0)."""
        if u <= 0:
            return 0.0
        return self.seg_cbase[seg] + (u - self.seg_start[seg] + 1) * self.seg_dc[seg]

    cdef void catch_up(self, int g, int32_t u_now) noexcept nogil:
        """Bring group g from its last update to update u_now: apply the L2
        decay of the updates in between and fold them into the averages."""
        cdef GroupState* gs = &self.groups[g]
        cdef int32_t u0 = gs.last_u, first, last, seg_end
        cdef double b, c0, decay, x, total = 0.0, e_first, keep, add
        cdef Py_ssize_t s0, e0, j
        cdef int s, m
        if u0 >= u_now:
            return
        gs.last_u = u_now
        b = gs.rate * self.inv_n_sigma2
        if b == 0.0 and not self.use_averages:
            return
        c0 = self._C_at(self._seg_of(u0), u0) if u0 > 0 else 0.0
        decay = _decay(b * (self._C_at(self._seg_of(u_now), u_now) - c0))
        group_range(self.params, g, &s0, &e0)
        cdef float* w = self.params.w
        if self.use_averages:
            # total = sum over updates u0+1..u_now of the decay since u0
            s = self._seg_of(u0 + 1)
            while s < self.n_seg and self.seg_start[s] <= u_now:
                seg_end = self.seg_start[s + 1] - 1 if s + 1 < self.n_seg else self.n_updates
                first = u0 + 1 if u0 + 1 > self.seg_start[s] else self.seg_start[s]
                last = u_now if u_now < seg_end else seg_end
                if last >= first:
                    m = last - first + 1
                    e_first = exp(-b * (self._C_at(s, first) - c0))
                    x = b * self.seg_dc[s]
                    if x == 0.0:
                        total += e_first * m
                    else:
                        total += e_first * expm1(-x * m) / expm1(-x)
                s += 1
            keep = <double>u0 / u_now
            add = total / u_now
            for j in range(s0, e0):
                self.avg[j] = <float>(self.avg[j] * keep + w[j] * add)
                w[j] = <float>(w[j] * decay)
        elif decay != 1.0:
            for j in range(s0, e0):
                w[j] = <float>(w[j] * decay)

    def flush(self):
        """Catch up every group (O(groups)); weights are then exact as stored."""
        cdef int g
        cdef int32_t u = self.n_updates
        with nogil:
            for g in range(self.params.n_groups):
                self.catch_up(g, u)

    def update(self, SparseGrad grad):
        """One ADF step with the (ascent) gradient of a mini-batch."""
        if grad.params is not self.params:
            raise ValueError("the gradient belongs to another model")
        self.step(grad)

    cdef int reserve_steps(self, int n_updates, Py_ssize_t n_groups) except -1:
        """Room for n_updates more steps that touch n_groups groups in all, so
        that step() grows nothing (and never needs the GIL) while they run."""
        while self.n_seg + n_updates > self.cap_seg:
            self._grow_segments(2 * self.cap_seg)
        cdef Py_ssize_t need = min(<Py_ssize_t>self.n_wlist + n_groups, <Py_ssize_t>self.params.n_groups)
        while need > self.cap_wlist:
            self._grow_wlist(2 * self.cap_wlist)
        return 0

    cdef int step(self, SparseGrad grad) except -1 nogil:
        """update() without the GIL (the gradient must belong to params)."""
        cdef int B = grad.n_samples
        if B == 0 or grad.n_touched == 0:
            return 0
        cdef double clip = 1.0, norm
        if self.grad_clip > 0.0:
            norm = sqrt(grad.sq_norm())
            if norm > self.grad_clip:
                clip = self.grad_clip / norm
        cdef int32_t u_prev = self.n_updates, u_new = self.n_updates + 1
        cdef double dC = self.G * B
        cdef int i, g
        cdef Py_ssize_t s0, e0, j, k
        cdef double gamma, decay
        cdef float* w = self.params.w
        # register the update's increment of C
        if self.n_seg == 0 or self.seg_dc[self.n_seg - 1] != dC:
            if self.n_seg == self.cap_seg:
                with gil:
                    self._grow_segments(2 * self.cap_seg)
            self.seg_start[self.n_seg] = u_new
            self.seg_cbase[self.n_seg] = self.C
            self.seg_dc[self.n_seg] = dC
            self.n_seg += 1
        cdef GroupState* gs
        cdef double inv_u = 1.0 / u_new
        for i in range(grad.n_touched):
            g = grad.touched[i]
            self.catch_up(g, u_prev)
            gs = &self.groups[g]
            gamma = self.G * gs.rate * clip
            decay = _decay(gs.rate * self.inv_n_sigma2 * dC)
            group_range(self.params, g, &s0, &e0)
            k = grad.offset[i]
            for j in range(s0, e0):
                w[j] = <float>(w[j] * decay + gamma * grad.values[k])
                k += 1
            if self.use_averages:
                for j in range(s0, e0):
                    self.avg[j] = <float>(self.avg[j] + (w[j] - self.avg[j]) * inv_u)
            gs.last_u = u_new
            if gs.count == 0:
                if self.n_wlist == self.cap_wlist:
                    with gil:
                        self._grow_wlist(2 * self.cap_wlist)
                self.wlist[self.n_wlist] = g
                self.n_wlist += 1
            gs.count += grad.occ[i]
        self.n_updates = u_new
        self.n_samples += B
        self.C += dC
        self.window_fill += B
        if self.window_fill >= self.window:
            self.end_window()
        return 0

    cdef void end_window(self) noexcept nogil:
        cdef int i, g
        cdef double u, eta, q = <double>self.window_fill
        cdef int32_t un = self.n_updates
        cdef GroupState* gs
        for i in range(self.n_wlist):
            g = self.wlist[i]
            self.catch_up(g, un)
            gs = &self.groups[g]
            u = gs.count / q
            if u > 1.0:
                u = 1.0
            eta = self.alpha - u * (self.alpha - self.beta)
            gs.rate = <float>max(gs.rate * eta / self.alpha, 1e-30)
            gs.count = 0
        self.n_wlist = 0
        self.G *= self.alpha
        self.window_fill = 0
        self.n_windows += 1

    def _grow_wlist(self, int cap):
        self.wlist = <int32_t*>resized(self.wlist, sizeof(int32_t) * cap, "the ADF window list")
        self.cap_wlist = cap

    def _grow_segments(self, int cap):
        self.seg_start = <int32_t*>resized(self.seg_start, sizeof(int32_t) * cap, "the ADF segments")
        self.seg_cbase = <double*>resized(self.seg_cbase, sizeof(double) * cap, "the ADF segments")
        self.seg_dc = <double*>resized(self.seg_dc, sizeof(double) * cap, "the ADF segments")
        self.cap_seg = cap

    def learning_rates(self):
        """Current per-group rates gamma_k (float64, O(groups))."""
        out = numpy.empty(self.params.n_groups, dtype=numpy.float64)
        cdef double[::1] o = out
        cdef int g
        for g in range(self.params.n_groups):
            o[g] = self.G * self.groups[g].rate
        return out

    def set_learning_rates(self, rates):
        """Replace the per-group rates gamma_k (learning_rates()' inverse), after a
        flush: pending L2 decay is applied with the rate it was accrued under."""
        r = numpy.ascontiguousarray(rates, dtype=numpy.float64)
        if r.shape != (self.params.n_groups,):
            raise ValueError(f"rates have shape {r.shape}, expected ({self.params.n_groups},)")
        if not numpy.all(numpy.isfinite(r)) or numpy.any(r <= 0.0):
            raise ValueError("learning rates must be finite and positive")
        self.flush()
        cdef const double[::1] rv = r
        cdef int g
        for g in range(self.params.n_groups):
            self.groups[g].rate = <float>max(rv[g] / self.G, 1e-30)

    def averaged_weights(self):
        """Mean of the weights over all updates so far (float32 copy). Flushes."""
        if not self.use_averages:
            raise ValueError("this ADF state does not keep averages (use_averages=false)")
        self.flush()
        if self.n_updates == 0 or self.params.n_weights == 0:
            return numpy.array(self.params.weights, dtype=numpy.float32, copy=True)
        return numpy.array(<float[:self.params.n_weights]>self.avg)

    @property
    def nbytes(self):
        """Bytes of optimizer state (per-group rates, counts, stamps, averages)."""
        n = self.params.n_groups * sizeof(GroupState)
        if self.use_averages:
            n += self.params.n_weights * sizeof(float)
        n += self.cap_wlist * sizeof(int32_t) + self.cap_seg * (sizeof(int32_t) + 2 * sizeof(double))
        return n
