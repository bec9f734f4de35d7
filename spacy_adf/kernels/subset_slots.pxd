# cython: language_level=3
"""The hash slots of a subset table, one definition for the expansion
(`expansion.pyx`) and the on-line learner (`subset_learner.pyx`): open
addressing with linear probing over 16-byte slots, key (`subset_keys`) and
subset id side by side, so a probe costs one cache line. Each table keeps its
own per-id columns (parent, item, size, ...); the slots are rebuilt from the
parent and item columns when they double, so a doubling never holds the old
and the new slot array at once. ``cdef inline`` in a .pxd, so each extension
compiles its own copy (see idsets.pxd)."""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free

from .subset_keys cimport mix64, subset_key


cdef struct Slot:
    uint64_t key        # 0 = empty (real keys are >= 2^32)
    int32_t val         # the subset id
    int32_t pad


cdef struct Slots:
    Slot* slots         # NULL once lost to an out-of-memory error, or freed
    uint64_t mask       # number of slots - 1 (a power of two minus one)


cdef inline uint64_t slots_for(int64_t expected) noexcept nogil:
    """Slots for `expected` subsets, at most half full: a power of two >= 1024."""
    cdef uint64_t n_slots = 1024
    while n_slots < <uint64_t>(2 * expected + 2):
        n_slots *= 2
    return n_slots


cdef inline int slots_alloc(Slots* s, uint64_t n_slots) noexcept nogil:
    """n_slots empty slots (a power of two); -1, s.slots NULL, where they cannot be had."""
    s.slots = <Slot*>calloc(n_slots, sizeof(Slot))
    if s.slots == NULL:
        s.mask = 0
        return -1
    s.mask = n_slots - 1
    return 0


cdef inline void slots_free(Slots* s) noexcept nogil:
    free(s.slots)
    s.slots = NULL
    s.mask = 0


cdef inline uint64_t slot_home(const Slots* s, uint64_t key) noexcept nogil:
    return mix64(key) & s.mask


cdef inline int64_t slots_probe(const Slots* s, uint64_t key, uint64_t h) noexcept nogil:
    """The id of `key`, probing from its home slot h; -1 if absent."""
    while s.slots[h].key != 0:
        if s.slots[h].key == key:
            return s.slots[h].val
        h = (h + 1) & s.mask
    return -1


cdef inline int64_t slots_find(const Slots* s, uint64_t key) noexcept nogil:
    return slots_probe(s, key, slot_home(s, key))


cdef inline int64_t slots_seek(const Slots* s, uint64_t key, uint64_t* h) noexcept nogil:
    """The id of `key`; -1 if absent, with *h the empty slot where it goes."""
    h[0] = slot_home(s, key)
    while s.slots[h[0]].key != 0:
        if s.slots[h[0]].key == key:
            return s.slots[h[0]].val
        h[0] = (h[0] + 1) & s.mask
    return -1


cdef inline void slots_put(Slots* s, uint64_t h, uint64_t key, int32_t sid) noexcept nogil:
    s.slots[h].key = key
    s.slots[h].val = sid


cdef inline bint slots_too_full(const Slots* s, int64_t n) noexcept nogil:
    """Whether n ids (id 0, the empty set, has no slot) fill over 70% of the slots."""
    return <uint64_t>n * 10 > (s.mask + 1) * 7


cdef inline void _slots_fill(Slots* s, const int32_t* parent, const int32_t* item, int64_t n) noexcept nogil:
    cdef int64_t sid
    cdef uint64_t key, h
    for sid in range(1, n):
        key = subset_key(parent[sid], item[sid])
        h = mix64(key) & s.mask
        while s.slots[h].key != 0:
            h = (h + 1) & s.mask
        s.slots[h].key = key
        s.slots[h].val = <int32_t>sid


cdef inline int slots_double(Slots* s, const int32_t* parent, const int32_t* item, int64_t n) noexcept nogil:
    """Twice the slots, rebuilt from the id columns (ids 1 .. n-1). The old
    array goes before the new one comes: the peak is the new array alone
    (512 MB less at train-dep's last doubling). If the new size cannot be
    had, the old size is rebuilt and -1 returned; if not even that, s.slots
    is NULL (the tables then refuse every call) and -1 returned."""
    cdef uint64_t n_slots = (s.mask + 1) * 2
    cdef int rc = 0
    free(s.slots)
    if slots_alloc(s, n_slots) < 0:
        rc = -1
        if slots_alloc(s, n_slots // 2) < 0:
            return -1
    _slots_fill(s, parent, item, n)
    return rc
