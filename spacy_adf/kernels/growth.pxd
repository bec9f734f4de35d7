# cython: language_level=3
"""The C columns of the subset tables (`expansion.pyx`, `subset_learner.pyx`)
and of the miner (`mining.pyx`): growing them without the GIL and copying
them out to numpy. ``cdef inline`` in a .pxd, so each extension compiles its
own copy (see idsets.pxd)."""
from libc.stdlib cimport realloc
from libc.string cimport memcpy


cdef inline int grow_block(void** block, size_t nbytes) noexcept nogil:
    """realloc(*block, nbytes) into *block; -1 (block unchanged) where it fails."""
    cdef void* p = realloc(block[0], nbytes)
    if p == NULL:
        return -1
    block[0] = p
    return 0


cdef inline object fill_column(out, const void* src):
    """The numpy array `out`, filled with its nbytes from the C column `src`."""
    cdef unsigned char[::1] raw = out.view("uint8")
    if raw.shape[0]:
        memcpy(&raw[0], src, raw.shape[0])
    return out
