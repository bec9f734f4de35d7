"""kernels.free_memory: freed heap pages go back to the OS before a trainer's table grows."""
import sys

from spacy_adf.kernels.free_memory import release_free_memory


def _rss_kb() -> int:
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def test_freed_malloc_memory_leaves_the_resident_set():
    if not sys.platform.startswith("linux"):
        assert release_free_memory() in (True, False)
        return
    import gc

    import numpy

    # many small arrays: their buffers come from malloc (not Python's own
    # arenas, which go back by themselves), as a corpus's feature arrays do
    junk = [numpy.arange(10) for _ in range(500_000)]
    del junk
    gc.collect()
    freed_but_held = _rss_kb()
    assert release_free_memory() is True
    assert _rss_kb() < freed_but_held - 30_000
