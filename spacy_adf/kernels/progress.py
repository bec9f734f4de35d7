"""Progress lines for long training steps, in spaCy's console style
(wasabi's info lines, as `spacy train` prints its own), so that no step of
`initialize` stays silent for more than `INTERVAL` seconds: `Progress.tick`
for loops that come back to Python, `Progress.running` (a daemon thread) for
one call that does not but releases the GIL (libsvm, liblinear, PKE mining)."""
import sys
import threading
import time
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

# seconds between lines: under the 30 s a step may stay silent, with room
# for a busy machine's scheduling delays
INTERVAL = 20.0


def _fmt_seconds(s: float) -> str:
    return f"{s:.1f} s" if s < 60 else f"{s / 60:.1f} min"


class Progress:
    """Progress lines of one model's training, each prefixed by `label`
    (e.g. "pke_dependency"). ``quiet`` prints nothing (tests)."""

    def __init__(self, label: str, interval: float = INTERVAL, quiet: bool = False,
                 write: Optional[Callable[[str], None]] = None):
        if not interval > 0:
            raise ValueError(f"the progress interval must be > 0 s, not {interval!r}")
        self.label = label
        self.interval = float(interval)
        self.quiet = quiet
        self._write = write
        self._last = time.perf_counter()
        self._lock = threading.Lock()

    def __getstate__(self):  # models that hold a Progress get pickled (Ray, forks)
        state = dict(self.__dict__)
        state.pop("_lock")
        state["_write"] = None
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def say(self, message: str) -> None:
        with self._lock:
            self._last = time.perf_counter()
            if self.quiet:
                return
            line = f"\u2139 [{self.label}] {message}"
            if self._write is not None:
                self._write(line)
            else:
                print(line, flush=True, file=sys.stdout)

    def tick(self, message: Callable[[], str]) -> bool:
        """Print ``message()`` if `interval` seconds passed since the last
        line (the message is only built then); returns whether it printed."""
        if time.perf_counter() - self._last < self.interval:
            return False
        self.say(message())
        return True

    @contextmanager
    def running(self, what: str, status: Optional[Callable[[], str]] = None) -> Iterator[None]:
        """Announce `what`, print "still ..." every `interval` seconds from a
        thread until the block ends (with ``status()`` appended if given),
        then the time it took."""
        start = time.perf_counter()
        self.say(f"{what} ...")
        done = threading.Event()

        def beat():
            while not done.wait(self.interval):
                extra = f" ({status()})" if status is not None else ""
                self.say(f"{what}: still running, {_fmt_seconds(time.perf_counter() - start)}{extra}")

        thread = threading.Thread(target=beat, name=f"progress {self.label}", daemon=True)
        thread.start()
        try:
            yield
        finally:
            done.set()
            thread.join()
        self.say(f"{what}: done in {_fmt_seconds(time.perf_counter() - start)}")

    def counted(self, items, what: str, unit: str) -> Iterator:
        """Yield from `items`, ticking "what: N unit" while it runs and a
        last line with the total."""
        start = self._last = time.perf_counter()
        n = 0
        for item in items:
            yield item
            n += 1
            if not n & 63:
                self.tick(lambda: f"{what}: {n:,} {unit}, {_fmt_seconds(time.perf_counter() - start)}")
        self.say(f"{what}: {n:,} {unit} in {_fmt_seconds(time.perf_counter() - start)}")
