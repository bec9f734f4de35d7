"""Give the C heap's free memory back to the operating system.

A kernel model reads its whole corpus (Docs, feature strings) before the
trainer's subset table grows. Python frees those objects, but glibc keeps
the freed pages in its heap, so they still count in the process's resident
memory while the table is built on top: the peak is corpus + table instead
of the larger of the two. ``malloc_trim(0)`` returns the free pages. On a C
library without it (macOS, musl) nothing happens.
"""
import ctypes
import ctypes.util
import gc

_libc = None


def release_free_memory() -> bool:
    """Collect garbage and return free heap pages to the OS; whether the C
    library could (glibc's malloc_trim)."""
    global _libc
    gc.collect()
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        except OSError:
            _libc = False
    trim = getattr(_libc, "malloc_trim", None) if _libc else None
    if trim is None:
        return False
    return bool(trim(0))
