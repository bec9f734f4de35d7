"""Give the C heap's free memory back to the operating system: a kernel
model reads its whole corpus before the trainer's subset table grows, and
glibc keeps the pages Python freed in its heap, so the peak would be corpus +
table instead of the larger of the two. On a C library without
``malloc_trim`` (macOS, musl) nothing happens."""
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
