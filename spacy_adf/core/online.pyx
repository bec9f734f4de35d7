# cython: language_level=3
"""On-line CRF training loop over mini-batches of sequences, without returning to
Python between samples, in the calling thread or on one background thread
(docs/architecture.md, "The numeric core")."""
from cpython.mem cimport PyMem_Free
from libc.math cimport isfinite
from libc.stdint cimport int32_t, int64_t

import atexit
import os
import threading

import numpy

from .adf cimport SparseADF
from .crf cimport TRANS_STORE_CAP, CRFContext, CRFModel, Seq, crf_loglik_grad, crf_perceptron_grad
from .params cimport SparseGrad, resized


cdef extern from *:
    """
    /* A one-slot hand-over between the Python thread and the steps thread:
       a state word under a mutex, waited on with a condition variable. */
    #ifdef _WIN32
    #include <windows.h>
    typedef struct { CRITICAL_SECTION mu; CONDITION_VARIABLE cv; int state; } adf_gate;
    static void adf_gate_init(adf_gate* g) {
        InitializeCriticalSection(&g->mu); InitializeConditionVariable(&g->cv); g->state = 0; }
    static void adf_gate_set(adf_gate* g, int s) {
        EnterCriticalSection(&g->mu); g->state = s; WakeAllConditionVariable(&g->cv);
        LeaveCriticalSection(&g->mu); }
    static void adf_gate_wait(adf_gate* g, int s) {
        EnterCriticalSection(&g->mu);
        while (g->state != s) SleepConditionVariableCS(&g->cv, &g->mu, INFINITE);
        LeaveCriticalSection(&g->mu); }
    #else
    #include <pthread.h>
    typedef struct { pthread_mutex_t mu; pthread_cond_t cv; int state; } adf_gate;
    static void adf_gate_init(adf_gate* g) {
        pthread_mutex_init(&g->mu, NULL); pthread_cond_init(&g->cv, NULL); g->state = 0; }
    static void adf_gate_set(adf_gate* g, int s) {
        pthread_mutex_lock(&g->mu); g->state = s; pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu); }
    static void adf_gate_wait(adf_gate* g, int s) {
        pthread_mutex_lock(&g->mu);
        while (g->state != s) pthread_cond_wait(&g->cv, &g->mu);
        pthread_mutex_unlock(&g->mu); }
    #endif
    """
    ctypedef struct adf_gate:
        pass
    void adf_gate_init(adf_gate* g) nogil
    void adf_gate_set(adf_gate* g, int s) nogil
    void adf_gate_wait(adf_gate* g, int s) nogil


cdef enum:
    GATE_IDLE = 0
    GATE_SUBMITTED = 1
    GATE_DONE = 2


cdef struct Item:
    Seq seq
    const int32_t* gold
    int64_t n_attrs


cdef class OnlineSteps:
    """One run of on-line steps over `sequences` in order, one update per
    `minibatch` sequences (docs/architecture.md, "The numeric core").

    sequences: list of (pos_ptr int64 (n+1, from 0), attrs int32, gold int32 (n)
    [, values float32 (one per attribute entry)]), all checked before any step.
    The result (`run`, `wait`) is the summed log-likelihood (each term at the weights
    the sample saw), or with perceptron=True minus the number of wrong positions."""
    cdef CRFModel model
    cdef SparseADF state
    cdef SparseGrad grad
    cdef CRFContext ctx
    cdef list sequences      # owns the arrays the items point into
    cdef Item* items
    cdef Py_ssize_t n_items
    cdef int minibatch
    cdef bint perceptron
    cdef object pred_arr
    cdef int32_t* pred
    cdef double total
    cdef readonly bint done
    cdef bint started
    cdef object error
    cdef public object on_done  # called with the result once, by whoever waits first

    def __dealloc__(self):
        PyMem_Free(self.items)

    def __init__(self, CRFModel model, SparseADF state, SparseGrad grad, list sequences,
                 int minibatch=1, CRFContext ctx=None, bint perceptron=False):
        if minibatch < 1:
            raise ValueError(f"minibatch must be >= 1, got {minibatch}")
        if state.params is not model or grad.params is not model:
            raise ValueError("model, optimizer state and gradient buffer do not belong together")
        self.model, self.state, self.grad = model, state, grad
        self.ctx = ctx if ctx is not None else CRFContext()
        self.minibatch, self.perceptron = minibatch, perceptron
        self.sequences = sequences
        self.n_items = len(sequences)
        self.items = <Item*>resized(NULL, sizeof(Item) * max(self.n_items, 1), "the on-line steps")
        cdef const int64_t[::1] ptr
        cdef const int32_t[::1] attrs
        cdef const int32_t[::1] gold
        cdef const float[::1] vals
        cdef int32_t[::1] pred
        cdef Py_ssize_t k, a
        cdef int L = model.n_labels, n_attrs = model.n_attrs, n, max_n = 0, max_stored = 0
        cdef int64_t batch_groups = 0, batch_values = 0, max_groups = 1, max_values = 1
        cdef int64_t all_groups = 0
        cdef Item* it
        for k in range(self.n_items):
            sample = sequences[k]
            if len(sample) == 4:
                ptr, attrs, gold, vals = sample
                if vals.shape[0] != attrs.shape[0]:
                    raise ValueError("feature values do not match the attributes")
                for a in range(vals.shape[0]):
                    if not isfinite(vals[a]):
                        raise ValueError("feature values must be finite (a NaN or infinite value was given)")
            else:
                ptr, attrs, gold = sample
                vals = None
            it = &self.items[k]
            n = <int>gold.shape[0]
            for a in range(attrs.shape[0]):
                if attrs[a] < 0 or attrs[a] >= n_attrs:
                    raise ValueError("attribute id out of range")
                batch_values += model.ptr[attrs[a] + 1] - model.ptr[attrs[a]]
            if n:
                if ptr.shape[0] != n + 1 or ptr[n] != attrs.shape[0] or ptr[0] != 0:
                    raise ValueError("malformed sequence features")
                for a in range(n):
                    if gold[a] < 0 or gold[a] >= L:
                        raise ValueError("gold label id out of range")
            it.seq.n = n
            it.seq.ptr = &ptr[0] if ptr.shape[0] else NULL
            it.seq.attrs = &attrs[0] if attrs.shape[0] else NULL
            it.seq.vals = &vals[0] if vals is not None and vals.shape[0] else NULL
            it.gold = &gold[0] if n else NULL
            it.n_attrs = attrs.shape[0]
            batch_groups += attrs.shape[0]
            max_n = max(max_n, n)
            if <int64_t>n * L * L <= TRANS_STORE_CAP:
                max_stored = max(max_stored, n)
            if (k + 1) % minibatch == 0 or k + 1 == self.n_items:
                # every group a mini-batch's gradient can touch: the head and its attributes
                max_groups = max(max_groups, batch_groups + 1)
                max_values = max(max_values, batch_values + model.off_blocks)
                all_groups += batch_groups + 1
                batch_groups = batch_values = 0
        grad.reserve(min(max_groups, <int64_t>model.n_groups), min(max_values, <int64_t>model.n_weights))
        state.reserve_steps(<int>((self.n_items + minibatch - 1) // minibatch), all_groups)
        self.ctx.reserve(max_n, L, False)
        if max_stored:
            self.ctx.reserve(max_stored, L, True)
        if perceptron:
            self.pred_arr = pred = numpy.empty(2 * max(max_n, 1), dtype=numpy.int32)
            self.pred = &pred[0]

    cdef int _run(self) except -1 nogil:
        cdef Py_ssize_t i = 0, j, k
        cdef int64_t a, blk, sink = 0
        cdef double sinkf = 0.0, total = 0.0
        cdef int32_t u
        cdef int L = self.model.n_labels
        cdef bint store
        cdef Item* it
        self.grad.reset()
        while i < self.n_items:
            j = min(i + self.minibatch, self.n_items)
            u = self.state.n_updates
            # weights of this mini-batch must be current before the forward pass
            self.state.catch_up(0, u)
            for k in range(i, j):
                it = &self.items[k]
                # one pass of independent loads first: the cache misses on the
                # per-group state overlap instead of stalling catch_up one by one
                for a in range(it.n_attrs):
                    sink += (self.state.groups[it.seq.attrs[a] + 1].last_u
                             + self.grad.slots[it.seq.attrs[a] + 1].slot + self.model.ptr[it.seq.attrs[a]])
                for a in range(it.n_attrs):
                    blk = self.model.ptr[it.seq.attrs[a]]
                    sinkf += self.model.w[self.model.off_blocks + blk] + self.model.code[blk]
                for a in range(it.n_attrs):
                    self.state.catch_up(it.seq.attrs[a] + 1, u)
            for k in range(i, j):
                it = &self.items[k]
                if it.seq.n == 0:
                    continue
                store = <int64_t>it.seq.n * L * L <= TRANS_STORE_CAP
                if not self.ctx.ready(it.seq.n, L, store):
                    with gil:  # not reached: the buffers were grown for the run
                        self.ctx.reserve(it.seq.n, L, store)
                if self.perceptron:
                    total -= crf_perceptron_grad(self.model, &it.seq, it.gold, self.ctx, self.grad, self.pred)
                else:
                    total += crf_loglik_grad(self.model, &it.seq, it.gold, self.ctx, self.grad)
            self.state.step(self.grad)
            self.grad.reset()
            i = j
        self.state.sink = sink + <int64_t>(sinkf != sinkf)
        self.total = total
        return 0

    def run(self):
        """Run the steps in this thread (without the GIL); the result."""
        if self.started:
            raise RuntimeError("these on-line steps were already run")
        self.started = True
        try:
            with nogil:
                self._run()
        except BaseException as e:
            self.error = e
        return self._finish()

    def start(self):
        """Run the steps on the background thread and return at once; the
        model, state, gradient buffer and context must not be used until
        `wait` returns. One run is in flight at a time: a run still going
        (of any model) is waited for first."""
        if self.started:
            raise RuntimeError("these on-line steps were already run")
        self.started = True
        _thread.submit(self)

    def wait(self):
        """Wait until the steps have run; the result (raises what the steps
        raised). Calls `on_done(result)` the first time."""
        if not self.started:
            raise RuntimeError("these on-line steps were not started")
        if not self.done:
            _thread.wait_for(self)
        return self._finish()

    cdef object _finish(self):
        if not self.done:
            self.done = True
            self.sequences = None  # unpin the arrays
            if self.error is None and self.on_done is not None:
                callback, self.on_done = self.on_done, None
                callback(self.total)
        if self.error is not None:
            raise self.error
        return self.total


cdef class _StepsThread:
    """The background thread of `OnlineSteps.start`: it waits on the gate
    without the GIL and runs one submitted run at a time, also without it,
    so neither side waits for the other's GIL switch interval."""
    cdef adf_gate gate
    cdef OnlineSteps job
    cdef object thread

    def __cinit__(self):
        adf_gate_init(&self.gate)
        self.job = None

    def _serve(self):
        while True:
            try:
                with nogil:
                    while True:
                        adf_gate_wait(&self.gate, GATE_SUBMITTED)
                        self.job._run()
                        adf_gate_set(&self.gate, GATE_DONE)
            except BaseException as e:
                self.job.error = e
                adf_gate_set(&self.gate, GATE_DONE)

    cdef submit(self, OnlineSteps job):
        if self.thread is None:
            self.thread = threading.Thread(target=self._serve, name="spacy-adf-steps", daemon=True)
            self.thread.start()
        self.drain()  # one run in flight: the previous one ends first
        self.job = job
        adf_gate_set(&self.gate, GATE_SUBMITTED)

    cdef wait_for(self, OnlineSteps job):
        if self.job is not job:
            return  # already collected
        with nogil:
            adf_gate_wait(&self.gate, GATE_DONE)
        self.job = None
        adf_gate_set(&self.gate, GATE_IDLE)

    def drain(self):
        """Wait for the run in flight, if any (before a fork)."""
        if self.job is not None:
            try:
                self.job.wait()
            except BaseException:
                pass  # kept on the run: its owner's wait raises it


cdef _StepsThread _thread = _StepsThread()  # its thread starts with the first start()


def _drain():
    # before a fork (the child has no steps thread) and at exit
    _thread.drain()


def _after_fork_in_child():
    # the thread does not exist in the child: the next start() makes a new one
    global _thread
    _thread = _StepsThread()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_drain, after_in_child=_after_fork_in_child)
# a run still going when the interpreter exits ends before the objects it writes are torn down
atexit.register(_drain)
