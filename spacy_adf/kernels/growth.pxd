# cython: language_level=3
"""Growing the parallel arrays of a subset table without the GIL: the one
realloc step that the expansion (`expansion.pyx`) and the on-line learner
(`subset_learner.pyx`) take for each of their columns. ``cdef inline`` in a
.pxd, so each extension compiles its own copy (see idsets.pxd)."""
from libc.stdlib cimport realloc


cdef inline int grow_block(void** block, size_t nbytes) noexcept nogil:
    """realloc(*block, nbytes) into *block; -1 (block unchanged) where it fails."""
    cdef void* p = realloc(block[0], nbytes)
    if p == NULL:
        return -1
    block[0] = p
    return 0
