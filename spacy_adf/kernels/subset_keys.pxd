# cython: language_level=3
"""The key of a subset in a subset table and its hash: one definition for
the expansion (`expansion.pyx`) and the on-line learner
(`subset_learner.pyx`), whose tables must agree on what a key is (their slot
layouts and probe loops differ: see the comments at their tables).
``cdef inline`` in a .pxd, so each extension compiles its own copy (see
idsets.pxd)."""
from libc.stdint cimport int32_t, uint32_t, uint64_t


cdef inline uint64_t mix64(uint64_t x) noexcept nogil:
    """splitmix64's finalizer: a bijection of uint64 that spreads the bits."""
    x ^= x >> 30
    x *= 0xbf58476d1ce4e5b9ULL
    x ^= x >> 27
    x *= 0x94d049bb133111ebULL
    x ^= x >> 31
    return x


cdef inline uint64_t subset_key(int32_t parent, int32_t item) noexcept nogil:
    """The subset parent + {item}: (parent + 1) in the high half, so every
    real key is >= 2^32 and 0 can mark an empty slot."""
    return ((<uint64_t>(parent + 1)) << 32) | <uint64_t><uint32_t>item
