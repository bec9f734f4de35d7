"""Give the C heap's free pages back to the OS (glibc keeps them), so that a
kernel model's peak is the larger of its corpus and its trainer's table, not
their sum; nothing happens without ``malloc_trim`` (macOS, musl)."""
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
