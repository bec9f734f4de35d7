from libc.stdint cimport int32_t, int64_t, uint16_t

from .params cimport GroupedParams, SparseGrad


cdef class CRFModel(GroupedParams):
    """Weights and feature layout of a first-order linear-chain CRF.

    Weight layout: [transitions L*L | start L | end L | one block per attribute].
    Attribute a (0-based, ADF group a + 1) owns block entries
    [ptr[a], ptr[a+1]); entry k has code[k]: a label y (< L) for a state
    weight w[a, y], or L + yp*L + y for a rich edge weight w[a, yp, y].
    """
    cdef readonly int n_labels
    cdef readonly int n_attrs
    cdef readonly Py_ssize_t off_blocks
    cdef const uint16_t* code
    cdef readonly object codes  # uint16 entry codes (owns self.code)


cdef struct Seq:
    # One sequence: attributes of position t are attrs[ptr[t]:ptr[t+1]],
    # attribute i with value vals[i] (NULL: every value 1.0, binary features).
    int n
    const int64_t* ptr
    const int32_t* attrs
    const float* vals


cdef class CRFContext:
    """Flat buffers reused across sequences (grown, never shrunk)."""
    cdef double* state      # n*L: log scores, then exp(score - shift)
    cdef double* trans      # n*L*L exp'd per-position transition matrices (if stored)
    cdef double* alpha
    cdef double* beta
    cdef double* scale
    cdef double* scratch    # L*L
    cdef double* scratch2   # L*L
    cdef int32_t* back      # n*L backpointers
    cdef Py_ssize_t cap_n
    cdef Py_ssize_t cap_trans
    cdef int L
    cdef bint trans_stored
    cdef double sink        # result of the prefetch pass (keeps its loads alive)

    cdef int reserve(self, int n, int L, bint store_trans) except -1
    cdef bint ready(self, int n, int L, bint store_trans) noexcept nogil


cdef enum:
    TRANS_STORE_CAP = 8388608   # doubles (64 MB) of stored transition matrices


cdef double crf_loglik_grad(CRFModel m, Seq* seq, const int32_t* gold,
                            CRFContext ctx, SparseGrad grad) except? 1.0 nogil
cdef double crf_perceptron_grad(CRFModel m, Seq* s, const int32_t* gold, CRFContext ctx,
                                SparseGrad grad, int32_t* pred) except? -1.0 nogil
cdef double crf_viterbi(CRFModel m, Seq* seq, CRFContext ctx, int32_t* out) noexcept nogil
