"""Distributed annotation: Ray actors that each load the pipeline once and
run nlp.pipe over shards of the input, writing one output file per shard.

The driver only plans and tracks: a worker gets a shard's description (file,
line range, byte range), reads those lines itself, annotates them and writes
the shard's file; the driver sends no text and receives only counts.

Exactly once, whatever fails: a shard is a fixed range of the input
(sharding.plan_shards), its output is written under a temporary name and
renamed (atomic on one file system), so a file under a final name is always
complete; a rerun skips the shards whose file exists. The actors are
created with max_restarts / max_task_retries = -1: when a worker process
dies, Ray restarts the actor (which loads the pipeline again) and runs the
shard again, and the rename makes the retry the only copy.
"""
import contextlib
import json
import os
import resource
import sys
import time
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional

import spacy
from spacy.tokens import DocBin

from .raysupport import start_ray
from .sharding import BadLine, Shard, count_items, list_inputs, plan_inputs, read_shard

MANIFEST = "manifest.json"
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
    """srsly looks its msgpack encoders and decoders up in catalogue on every
    msgpack call: a copy of spaCy's whole function registry plus an entry
    point scan, ~0.2 ms a call. DocBin makes two such calls per Doc with span
    groups (the chunker's), more than the chunker's own time per Doc. Inside
    this block each registry answers from one lookup made on entry."""
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


def docs_to_bytes(docs, fmt: str) -> bytes:
    """A shard file's bytes. DocBin keeps user data only if a Doc has some:
    storing it costs a msgpack call per Doc (~0.2 ms each) even when empty."""
    if fmt == "jsonl":
        return "".join(json.dumps(d.to_json(), ensure_ascii=False) + "\n" for d in docs).encode("utf8")
    return DocBin(docs=docs, store_user_data=any(d.user_data for d in docs)).to_bytes()


class PipelineWorker:
    """One pipeline per worker process (made a Ray actor by `annotate`)."""

    def __init__(self, model: str, output: str, fmt: str, batch_size: int, text_field: str) -> None:
        self.nlp = spacy.load(model)
        self.output = Path(output)
        self.fmt = fmt
        self.batch_size = batch_size
        self.text_field = text_field

    def pid(self) -> int:
        return os.getpid()

    def annotate(self, shard: Shard, name: str) -> Dict[str, object]:
        """Read one shard of the input, annotate it and write its file."""
        start = time.perf_counter()
        with cached_msgpack_codecs():
            items, bad = read_shard(shard, self.text_field, self.nlp.vocab)
            docs = list(self.nlp.pipe(items, batch_size=self.batch_size))
            write_atomic(self.output / name, docs_to_bytes(docs, self.fmt))
        return {"n_docs": len(docs), "seconds": time.perf_counter() - start, "bad_lines": bad,
                "peak_rss_mb": peak_rss_mb(), "pid": os.getpid()}


def count_docs(path: Path) -> int:
    """Docs in a finished shard file."""
    if path.suffix == ".jsonl":
        return count_items(path)
    return len(DocBin().from_disk(path))


def check_model(model: str) -> None:
    if not (spacy.util.is_package(model) or Path(model).is_dir()):
        raise FileNotFoundError(f"no pipeline at {model!r}: give a directory made by nlp.to_disk "
                                "or spacy train, or an installed pipeline package")


class Annotation:
    """One annotation run: plan, resume, dispatch, manifest.

    `pids` lists the worker processes once `start()` has run (a test kills
    one of them); `run(on_shard)` calls on_shard(result) as shards finish.
    """

    def __init__(self, model: str, input: str, output: str, *, workers: int = 2,
                 address: Optional[str] = None, shard_size: int = 10_000, fmt: str = "spacy",
                 text_field: str = "text", batch_size: int = 256, progress: bool = True,
                 log: Callable[[str], None] = lambda msg: print(msg, file=sys.stderr)) -> None:
        if fmt not in SUFFIX:
            raise ValueError(f"output format must be one of {sorted(SUFFIX)}, got {fmt!r}")
        check_model(model)
        self.model, self.output, self.workers, self.address = model, Path(output), workers, address
        self.fmt, self.text_field, self.batch_size = fmt, text_field, batch_size
        self.progress, self.log = progress, log
        self.inputs = list_inputs(input)
        sizes, self.shards = plan_inputs(self.inputs, shard_size)
        self.plan = {"model": str(model), "format": fmt, "shard_size": shard_size,
                     "text_field": text_field, "inputs": [{"path": s, "n_lines": n} for s, n in sizes]}
        self.actors: list = []
        self.pids: List[int] = []

    def _check_previous(self) -> None:
        """A rerun must use the plan of the run it resumes."""
        path = self.output / MANIFEST
        if path.exists():
            previous = json.loads(path.read_text(encoding="utf8"))
            if previous.get("plan") != self.plan:
                raise ValueError(f"{self.output} holds the output of another run (its {MANIFEST} has "
                                 "another model, input, format or shard size): use a new output folder")

    def _write_manifest(self, shard_docs: Dict[int, int], bad: List[BadLine], complete: bool) -> None:
        suffix = SUFFIX[self.fmt]
        shards = [dict(s.to_dict(), file=s.name(suffix), n_docs=shard_docs.get(s.index)) for s in self.shards]
        manifest = {"plan": self.plan, "complete": complete, "n_docs": sum(shard_docs.values()),
                    "shards": shards, "bad_lines": [str(b) for b in bad]}
        write_atomic(self.output / MANIFEST, json.dumps(manifest, indent=1).encode("utf8"))

    def start(self) -> None:
        ray = start_ray(self.workers, self.address)
        worker = ray.remote(num_cpus=1, max_restarts=-1, max_task_retries=-1)(PipelineWorker)
        self.actors = [worker.remote(self.model, str(self.output.resolve()), self.fmt, self.batch_size,
                                     self.text_field)
                       for _ in range(self.workers)]
        self.pids = ray.get([a.pid.remote() for a in self.actors])

    def run(self, on_shard: Optional[Callable[[dict], None]] = None) -> dict:
        from tqdm import tqdm

        self.output.mkdir(parents=True, exist_ok=True)
        self._check_previous()
        self._write_manifest({}, [], complete=False)
        if not self.actors:
            self.start()
        ray = start_ray(self.workers, self.address)
        suffix = SUFFIX[self.fmt]
        todo = [s for s in self.shards if not (self.output / s.name(suffix)).exists()]
        todo_set = set(todo)
        # a resumed run counts the Docs of the shards done before
        shard_docs = {s.index: count_docs(self.output / s.name(suffix)) for s in self.shards
                      if s not in todo_set}
        bad: List[BadLine] = []
        results: List[dict] = []
        pending: Dict = {}  # object ref -> (shard, actor index)
        load = [0] * len(self.actors)  # shards in flight per actor
        bar = tqdm(total=sum(s.stop - s.start for s in todo), unit="doc", disable=not self.progress,
                   desc="annotate", file=sys.stderr)
        start = time.perf_counter()

        def collect(refs):
            for ref in refs:
                shard, k = pending.pop(ref)
                load[k] -= 1
                result = dict(ray.get(ref), shard=shard.index)
                for b in result["bad_lines"]:
                    self.log(f"skipped unreadable line {b}")
                bad.extend(result.pop("bad_lines"))
                shard_docs[shard.index] = result["n_docs"]
                results.append(result)
                bar.update(shard.stop - shard.start)
                if on_shard is not None:
                    on_shard(result)

        # at most two shards in flight per actor, each to the least busy one
        for shard in todo:
            while min(load) >= 2:
                done, _ = ray.wait(list(pending), num_returns=1)
                collect(done)
            k = load.index(min(load))
            load[k] += 1
            pending[self.actors[k].annotate.remote(shard, shard.name(suffix))] = (shard, k)
        while pending:
            done, _ = ray.wait(list(pending), num_returns=1)
            collect(done)
        bar.close()
        seconds = time.perf_counter() - start
        bad.sort(key=lambda b: (b.source, b.line))
        self._write_manifest(shard_docs, bad, complete=True)
        n_new = sum(r["n_docs"] for r in results)
        return {"n_shards": len(self.shards), "n_shards_run": len(results), "n_docs": sum(shard_docs.values()),
                "n_docs_run": n_new, "seconds": seconds, "docs_per_second": n_new / seconds if seconds else 0.0,
                "bad_lines": [str(b) for b in bad],
                # the share of the run's wall time the workers spent inside shards
                # (reading, annotating, writing): what the driver and Ray leave them
                "worker_busy": (sum(r["seconds"] for r in results) / (seconds * len(self.actors))
                                if seconds and self.actors else 0.0),
                "peak_rss_mb_per_worker": _peak_per_pid(results)}

    def shutdown(self) -> None:
        ray = start_ray(self.workers, self.address)
        for actor in self.actors:
            ray.kill(actor)
        self.actors = []


def _peak_per_pid(results: List[dict]) -> Dict[str, float]:
    peaks: Dict[str, float] = {}
    for r in results:
        key = str(r["pid"])
        peaks[key] = max(peaks.get(key, 0.0), r["peak_rss_mb"])
    return peaks


def annotate(model: str, input: str, output: str, **kwargs) -> dict:
    """Annotate INPUT into OUTPUT with the pipeline MODEL (see Annotation)."""
    run = Annotation(model, input, output, **kwargs)
    try:
        return run.run()
    finally:
        run.shutdown()
