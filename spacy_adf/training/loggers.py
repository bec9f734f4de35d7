"""`spacy_adf.TimingLogger.v1`: spaCy's console logger plus JSON-lines records
of every evaluation and of the process's phases, for benchmarks (the fields:
docs/training.md, "TimingLogger records")."""
import atexit
import json
import os
import time
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Tuple

from spacy import Language
from spacy.util import registry

from .console_table import console_table
from .contract import FinishesUpdates
from .spacy_internals import Wrappers

# times (time.time()) of the logger factory's calls since the last setup
_FACTORY_CALLS: List[float] = []


def process_start_time() -> Optional[float]:
    """The ``time.time()`` at which this process started (``/proc/self/stat``
    and ``CLOCK_BOOTTIME``), or None where that is not available."""
    try:
        stat = Path("/proc/self/stat").read_text()
        # the command name (field 2) may hold spaces: split after its ')'
        fields = stat[stat.rindex(")") + 2:].split()
        start_ticks = int(fields[19])  # field 22 of the whole line
        ticks = os.sysconf("SC_CLK_TCK")
        age = time.clock_gettime(time.CLOCK_BOOTTIME) - start_ticks / ticks
        return time.time() - age
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def _plain(value):
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (int, float, str, bool)) or value is None:
        return value
    try:
        return float(value)
    except (TypeError, ValueError):
        return str(value)


class _ProcessClock:
    """Wall-clock stamps of the training process's phases."""

    def __init__(self) -> None:
        self.start = process_start_time()
        self.update_end: Optional[float] = None
        self.first_update: Optional[float] = None
        self.evaluate_start: Optional[float] = None
        self.evaluate_end: Optional[float] = None
        self.wrappers = Wrappers()

    def since_start(self, t: Optional[float]) -> Optional[float]:
        return None if t is None or self.start is None else t - self.start

    def stamp(self, event: str, t: Optional[float] = None, **extra) -> Dict[str, Any]:
        t = time.time() if t is None else t
        return {"event": event, "time": t, "process_seconds": self.since_start(t), **extra}

    def instrument(self, nlp: Language) -> None:
        def mark(name: str, once: bool = False) -> Callable[[], None]:
            def set_time() -> None:
                if not once or self.__dict__[name] is None:
                    self.__dict__[name] = time.time()

            return set_time

        self.wrappers.wrap(nlp, "update", before=mark("first_update", once=True))
        self.wrappers.wrap(nlp, "evaluate", before=mark("evaluate_start"), after=mark("evaluate_end"))
        # the components being trained (spaCy calls setup with the frozen ones disabled)
        for _, proc in nlp.pipeline:
            if isinstance(proc, FinishesUpdates) and proc.is_trainable:
                self.wrappers.wrap(proc, "finish_update", after=mark("update_end"))


@registry.loggers("spacy_adf.TimingLogger.v1")
def timing_logger(path: Optional[str] = None, console: bool = True, progress_bar: bool = False,
                  process_path: Optional[str] = None):
    _FACTORY_CALLS.append(time.time())
    console_logger = registry.loggers.get("spacy.ConsoleLogger.v3")(
        progress_bar="train" if progress_bar else None, console_output=console
    )

    def setup(nlp: Language, stdout: IO, stderr: IO) -> Tuple[Callable, Callable]:
        t_setup = time.time()
        if console and not progress_bar:  # headers readable in 80 columns (console_table)
            log_console, finalize_console = console_table(nlp, stdout)
        else:
            log_console, finalize_console = console_logger(nlp, stdout, stderr)
        out = proc_out = None
        if path:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            out = open(path, "w", encoding="utf8")
        clock = _ProcessClock()
        if process_path:
            Path(process_path).parent.mkdir(parents=True, exist_ok=True)
            proc_out = open(process_path, "w", encoding="utf8")
        clock.instrument(nlp)

        def write_event(record: Dict[str, Any]) -> None:
            if proc_out is not None:
                proc_out.write(json.dumps(record) + "\n")
                proc_out.flush()

        calls = list(_FACTORY_CALLS)
        _FACTORY_CALLS.clear()
        write_event({"event": "process", "process_start_time": clock.start, "pid": os.getpid(),
                     "factory_calls": len(calls)})
        if len(calls) >= 2:  # spaCy's init_nlp, then its train: initialize ran in between
            write_event(clock.stamp("init_start", calls[-2]))
            write_event(clock.stamp("init_end", calls[-1]))
        write_event(clock.stamp("setup", t_setup))
        state = {"start": time.perf_counter(), "last": None, "eval": 0.0,
                 "n_steps": 0, "step_time": 0.0, "first_update_written": False}

        def log_step(info: Optional[Dict[str, Any]]) -> None:
            t_log = time.time()
            now = time.perf_counter()
            last = state["last"] if state["last"] is not None else state["start"]
            gap = now - last
            state["last"] = now
            if not state["first_update_written"] and clock.first_update is not None:
                write_event(clock.stamp("first_update", clock.first_update))
                state["first_update_written"] = True
            if info is None:
                state["n_steps"] += 1
                state["step_time"] += gap
            else:
                mean_step = state["step_time"] / state["n_steps"] if state["n_steps"] else 0.0
                state["eval"] += max(gap - mean_step, 0.0)
                stamps = (clock.update_end, clock.evaluate_start, clock.evaluate_end)
                timed = None not in stamps and stamps[0] <= stamps[1] <= stamps[2]
                update_end, evaluate_start, evaluate_end = stamps if timed else (None, None, None)
                eval_seconds = evaluate_end - update_end if timed else None
                save_seconds = t_log - evaluate_end if timed else None
                if out is not None:
                    wall = now - state["start"]
                    record = {
                        "epoch": info.get("epoch"),
                        "step": info.get("step"),
                        "score": info.get("score"),
                        "other_scores": _plain(info.get("other_scores", {})),
                        "losses": _plain(info.get("losses", {})),
                        "wall_seconds": wall,
                        "train_seconds": wall - state["eval"],
                        "process_seconds": clock.since_start(t_log),
                        "eval_seconds": eval_seconds,
                        "save_seconds": save_seconds,
                    }
                    out.write(json.dumps(record) + "\n")
                    out.flush()
                write_event(clock.stamp(
                    "evaluation", t_log, epoch=info.get("epoch"), step=info.get("step"),
                    score=_plain(info.get("score")),
                    update_end=clock.since_start(update_end),
                    evaluate_start=clock.since_start(evaluate_start),
                    evaluate_end=clock.since_start(evaluate_end),
                    logged=clock.since_start(t_log),
                    update_end_time=update_end,
                    evaluate_end_time=evaluate_end,
                    dev_read_seconds=(evaluate_start - update_end) if timed else None,
                    eval_seconds=eval_seconds, save_seconds=save_seconds))
            log_console(info)

        def finalize() -> None:
            clock.wrappers.restore()
            finalize_console()
            if out is not None:
                out.close()
            if proc_out is not None:
                write_event(clock.stamp("finalize"))
                proc_out.close()

                def at_exit() -> None:
                    try:
                        with open(process_path, "a", encoding="utf8") as file_:
                            file_.write(json.dumps(clock.stamp("exit")) + "\n")
                    except OSError:
                        pass

                atexit.register(at_exit)

        return log_step, finalize

    return setup
