"""Distributed annotation: Ray actors that each load the pipeline once and
run nlp.pipe over shards of the input, one output file per shard, written
exactly once by the driver (docs/distributed.md, "Annotation")."""
import contextlib
import json
import os
import resource
import shutil
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple

import spacy
from spacy.tokens import Doc, DocBin

from .raysupport import LOST, MAX_SHARD_RETRIES, SPREAD, ray, run_to_end, start_ray
from .sharding import BadLine, Shard, count_items, input_format, list_inputs, plan_inputs, read_shard, shard_bytes

MANIFEST = "manifest.json"
LINE_KEY = "input_line"  # doc.user_data key: the Doc's 1-based line in its input (a DocBin: its Doc number)
SUFFIX = {"spacy": ".spacy", "jsonl": ".jsonl"}


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` under a temporary name, then rename it to `path`."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


@contextlib.contextmanager
def cached_msgpack_codecs() -> Iterator[None]:
    """Inside this block srsly's msgpack codec registries answer from one lookup made on entry, not
    a catalogue scan on every msgpack call (twice per Doc in a DocBin); unlike
    `serialization.msgpack_hooks` it does not watch for new hooks (it is faster)."""
    import srsly.msgpack

    # registries not cached yet (an enclosing block already did the others)
    registries = [reg for reg in (srsly.msgpack.msgpack_encoders, srsly.msgpack.msgpack_decoders)
                  if "get_all" not in vars(reg)]
    for reg in registries:
        codecs = reg.get_all()
        reg.get_all = lambda codecs=codecs: codecs  # an instance attribute shadows the method
    try:
        yield
    finally:
        for reg in registries:
            del reg.get_all


def docs_to_bytes(docs: Iterable[Doc], fmt: str, store_user_data: bool = True) -> Tuple[bytes, int]:
    """A shard file's bytes and its number of Docs, each Doc serialized as it
    comes (never all held at once). JSONL: each Doc's to_json() with its
    input line number."""
    if fmt == "jsonl":
        lines = [json.dumps(dict(d.to_json(), **{LINE_KEY: d.user_data.get(LINE_KEY)}), ensure_ascii=False) + "\n"
                 for d in docs]
        return "".join(lines).encode("utf8"), len(lines)
    docbin = DocBin(store_user_data=store_user_data, docs=docs)  # added one by one as they come
    return docbin.to_bytes(), len(docbin)


def model_files(model: str) -> Optional[Dict[str, bytes]]:
    """The files of a pipeline folder, to ship to the workers through Ray;
    None for an installed pipeline package (every machine has it)."""
    path = Path(model)
    if not path.is_dir():
        return None
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


def load_shipped(model: str, files: Optional[Dict[str, bytes]]):
    """spacy.load of a shipped pipeline folder (written into a temporary
    folder, removed once loaded) or of an installed package."""
    if files is None:
        return spacy.load(model)
    folder = Path(tempfile.mkdtemp(prefix="spacy-adf-model-"))
    try:
        for name, data in files.items():
            (folder / name).parent.mkdir(parents=True, exist_ok=True)
            (folder / name).write_bytes(data)
        return spacy.load(folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _with_line_numbers(annotated: Iterable[Tuple[Doc, int]]) -> Iterator[Doc]:
    for doc, line in annotated:
        doc.user_data[LINE_KEY] = line
        yield doc


class PipelineWorker:
    """One pipeline per worker process (made a Ray actor by Annotation)."""

    def __init__(self, model: str, files: Optional[Dict[str, bytes]], fmt: str, batch_size: int,
                 text_field: str) -> None:
        self.nlp = load_shipped(model, files)
        self.fmt = fmt
        self.batch_size = batch_size
        self.text_field = text_field

    def ready(self) -> dict:
        return {"pid": os.getpid(), "node_id": ray.get_runtime_context().get_node_id()}

    def annotate(self, shard: Shard, data: bytes) -> Dict[str, object]:
        """The shard file's bytes and counts of one shard's input bytes."""
        start = time.perf_counter()
        with cached_msgpack_codecs():
            items, bad = read_shard(shard, self.text_field, self.nlp.vocab, data=data)
            out, n_docs = docs_to_bytes(_with_line_numbers(self.nlp.pipe(items, as_tuples=True,
                                                                          batch_size=self.batch_size)), self.fmt)
        return {"data": out, "n_docs": n_docs, "seconds": time.perf_counter() - start, "bad_lines": bad,
                "peak_rss_mb": peak_rss_mb(), "pid": os.getpid()}


class Annotation:
    """One annotation run: plan, resume, dispatch, manifest. Every check is
    made in __init__, before Ray starts; `run(on_shard)` calls
    on_shard(result) as shards finish."""

    def __init__(self, model: str, input: str, output: str, *, workers: int = 2,
                 address: Optional[str] = None, shard_size: int = 10_000, fmt: str = "spacy",
                 text_field: str = "text", batch_size: int = 256, progress: bool = True,
                 log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr)) -> None:
        if fmt not in SUFFIX:
            raise ValueError(f"output format must be one of {sorted(SUFFIX)}, got {fmt!r}")
        if workers < 1 or batch_size < 1:
            raise ValueError("--workers and --batch-size must be positive")
        if not (spacy.util.is_package(model) or Path(model).is_dir()):
            raise FileNotFoundError(f"no pipeline at {model!r}: give a directory made by nlp.to_disk "
                                    "or spacy train, or an installed pipeline package")
        self.model, self.output, self.workers, self.address = model, Path(output), workers, address
        if self.output.exists() and not self.output.is_dir():
            raise ValueError(f"the output {self.output} is a file: give a folder")
        self.fmt, self.text_field, self.batch_size = fmt, text_field, batch_size
        self.progress, self.log = progress, log
        self.inputs = list_inputs(input)
        sizes, self.shards = plan_inputs(self.inputs, shard_size)
        self.plan = {"model": str(model), "format": fmt, "shard_size": shard_size,
                     "text_field": text_field, "inputs": [{"path": s, "n_lines": n} for s, n in sizes]}
        self._check_previous()
        self.actors: Dict[int, object] = {}  # actor id -> handle, the live ones
        self.pids: List[int] = []
        self.actor_nodes: Dict[int, str] = {}
        self.n_replaced = 0
        self.n_done: Optional[int] = None  # shards written, once run() has started
        self.setup_seconds = 0.0
        self._next_id = 0
        self._starting: Dict = {}  # ready ref -> actor id of an actor not yet up

    def _check_previous(self) -> None:
        """A rerun must use the plan of the run it resumes."""
        path = self.output / MANIFEST
        if path.exists():
            previous = json.loads(path.read_text(encoding="utf8"))
            if previous.get("plan") != self.plan:
                raise ValueError(f"{self.output} holds the output of another run (its {MANIFEST} has "
                                 "another model, input, format or shard size): use a new output folder")
        elif self.output.is_dir() and any(self.output.iterdir()):
            raise ValueError(f"{self.output} is not empty and holds no {MANIFEST}: use a new or empty output folder")

    def _write_manifest(self, shard_docs: Dict[int, int], bad: List[BadLine], complete: bool) -> None:
        suffix = SUFFIX[self.fmt]
        shards = [dict(asdict(s), file=s.name(suffix), n_docs=shard_docs.get(s.index)) for s in self.shards]
        manifest = {"plan": self.plan, "complete": complete, "n_docs": sum(shard_docs.values()),
                    "line_key": LINE_KEY, "shards": shards, "bad_lines": [str(b) for b in bad]}
        write_atomic(self.output / MANIFEST, json.dumps(manifest, indent=1).encode("utf8"))

    def _start_actor(self) -> None:
        """A new actor, wherever Ray finds a CPU; it joins once it is up."""
        actor = self._actor_class.remote(self.model, self._files_ref, self.fmt, self.batch_size, self.text_field)
        self._starting[actor.ready.remote()] = (self._next_id, actor)
        self._next_id += 1

    def _actor_up(self, ref) -> None:
        actor_id, actor = self._starting.pop(ref)
        try:
            info = ray.get(ref)
        except LOST as e:
            reason = str(e).strip().splitlines()[0] if str(e).strip() else ""
            self.log(f"a new annotation worker was lost while it started ({type(e).__name__}: {reason[:300]}); "
                     "starting another")
            self.n_replaced += 1
            if self.n_replaced > MAX_SHARD_RETRIES * max(len(self.shards), 1):
                raise RuntimeError("annotation workers keep dying while they start: see the Ray logs") from None
            self._start_actor()
            return
        self.actors[actor_id] = actor
        self.actor_nodes[actor_id] = info["node_id"]
        self.pids.append(info["pid"])

    def start(self) -> None:
        """Start Ray (or join the cluster) and the workers; ship the pipeline."""
        t0 = time.perf_counter()
        start_ray(self.workers, self.address)
        # no restarts by Ray: a lost actor's shards are given to the others
        # and a new actor takes its place (it may land on another node)
        self._actor_class = ray.remote(num_cpus=1, max_restarts=0, max_task_retries=0,
                                       scheduling_strategy=SPREAD)(PipelineWorker)
        self._files_ref = ray.put(model_files(self.model))
        for _ in range(self.workers):
            self._start_actor()
        while self._starting:
            done, _ = ray.wait(list(self._starting), num_returns=1)
            self._actor_up(done[0])
        self.setup_seconds = time.perf_counter() - t0

    def run(self, on_shard: Optional[Callable[[dict], None]] = None) -> dict:
        from collections import deque

        from tqdm import tqdm

        self.output.mkdir(parents=True, exist_ok=True)
        self._write_manifest({}, [], complete=False)
        if not self.actors:
            self.start()
        suffix = SUFFIX[self.fmt]
        todo = deque(s for s in self.shards if not (self.output / s.name(suffix)).exists())
        done_before = set(self.shards) - set(todo)
        # a resumed run counts the Docs of the shards done before
        shard_docs = {s.index: count_items(self.output / s.name(suffix)) for s in done_before}
        self.n_done = len(done_before)
        bad: List[BadLine] = []
        results: List[dict] = []
        pending: Dict = {}  # object ref -> (shard, actor id)
        load = {a: 0 for a in self.actors}  # shards in flight per live actor
        tries: Dict[int, int] = {}
        docbin_refs: Dict[str, object] = {}  # a DocBin input is put into the object store once
        bar = tqdm(total=sum(s.stop - s.start for s in todo), unit="doc", disable=not self.progress,
                   desc="annotate", file=sys.stderr)
        start = time.perf_counter()

        def submit(shard: Shard, actor_id: int) -> None:
            if input_format(shard.source) == "docbin":
                if shard.source not in docbin_refs:
                    docbin_refs[shard.source] = ray.put(shard_bytes(shard))
                data = docbin_refs[shard.source]
            else:
                data = shard_bytes(shard)
            load[actor_id] += 1
            pending[self.actors[actor_id].annotate.remote(shard, data)] = (shard, actor_id)

        def lost(shard: Shard, actor_id: int, error: Exception) -> None:
            """Give the shard to another actor; replace the lost one."""
            tries[shard.index] = tries.get(shard.index, 0) + 1
            if tries[shard.index] > MAX_SHARD_RETRIES:
                raise RuntimeError(f"shard {shard.index} ({shard.source}, lines {shard.start + 1}-{shard.stop}) "
                                   f"lost its worker {tries[shard.index]} times; the shards written so far stay "
                                   "in the output folder: rerun the same command to resume") from None
            todo.appendleft(shard)
            if actor_id in self.actors:
                self.log(f"annotation worker {actor_id} lost ({type(error).__name__}): its shards go to the "
                         "other workers and a new worker is started")
                ray.kill(self.actors.pop(actor_id), no_restart=True)
                load.pop(actor_id, None)
                self.n_replaced += 1
                self._start_actor()

        def collect(ref) -> None:
            shard, actor_id = pending.pop(ref)
            if actor_id in load:
                load[actor_id] -= 1
            try:
                result = ray.get(ref)
            except LOST as e:
                lost(shard, actor_id, e)
                return
            write_atomic(self.output / shard.name(suffix), result.pop("data"))
            result["shard"] = shard.index
            for b in result["bad_lines"]:
                self.log(f"skipped unreadable line {b}")
            bad.extend(result.pop("bad_lines"))
            shard_docs[shard.index] = result["n_docs"]
            results.append(result)
            self.n_done += 1
            bar.update(shard.stop - shard.start)
            if on_shard is not None:
                on_shard(result)

        # at most two shards in flight per live actor, each to the least busy one
        while todo or pending:
            while todo and load and min(load.values()) < 2:
                actor_id = min(load, key=load.get)
                submit(todo.popleft(), actor_id)
            waiting = list(pending) + list(self._starting)
            if not waiting:
                raise RuntimeError("no annotation worker left and none could be started: see the Ray logs; "
                                   "rerun the same command to resume")
            # with no live actor, wait for a new one only so long
            timeout = None if pending else 600
            done, _ = ray.wait(waiting, num_returns=1, timeout=timeout)
            if not done:
                raise RuntimeError("every annotation worker was lost and Ray found no CPU for a new one in "
                                   "600 s; rerun the same command to resume")
            if done[0] in self._starting:
                self._actor_up(done[0])
                for actor_id in self.actors:
                    load.setdefault(actor_id, 0)
            else:
                collect(done[0])
        bar.close()
        seconds = time.perf_counter() - start
        bad.sort(key=lambda b: (b.source, b.line))
        self._write_manifest(shard_docs, bad, complete=True)
        n_new = sum(r["n_docs"] for r in results)
        return {"n_shards": len(self.shards), "n_shards_run": len(results), "n_docs": sum(shard_docs.values()),
                "n_docs_run": n_new, "seconds": seconds, "docs_per_second": n_new / seconds if seconds else 0.0,
                "setup_seconds": self.setup_seconds, "workers_replaced": self.n_replaced,
                "bad_lines": [str(b) for b in bad],
                # the share of the run's wall time the workers spent inside shards
                # (reading, annotating, writing): what the driver and Ray leave them
                "worker_busy": (sum(r["seconds"] for r in results) / (seconds * self.workers)
                                if seconds else 0.0),
                "peak_rss_mb_per_worker": _peak_per_pid(results)}

    def shutdown(self) -> None:
        for actor in list(self.actors.values()) + [a for _, a in self._starting.values()]:
            ray.kill(actor)
        self.actors, self._starting = {}, {}

    def interrupted_message(self) -> str:
        done = self.n_done
        if done is None:
            return f"interrupted before any shard was written to {self.output}; a rerun starts over"
        return (f"interrupted: {done} of {len(self.shards)} shards are written in {self.output}; "
                "rerun the same command to resume")


def _peak_per_pid(results: List[dict]) -> Dict[str, float]:
    peaks: Dict[str, float] = {}
    for r in results:
        key = str(r["pid"])
        peaks[key] = max(peaks.get(key, 0.0), r["peak_rss_mb"])
    return peaks


def annotate(model: str, input: str, output: str, **kwargs) -> dict:
    """Annotate INPUT into OUTPUT with the pipeline MODEL (see Annotation); a
    Ctrl-C raises Interrupted saying what was written."""
    return run_to_end(Annotation(model, input, output, **kwargs))
