"""Distributed annotation and iterative parameter mixing on an embedded Ray
(2 workers on this machine), against single-process spaCy.

1. train: `spacy train configs/chunking_np.cfg` on CoNLL-2000 (single process,
   per-epoch F and wall time from the TimingLogger), then IPM with 1, 2, 4
   and 8 shards on 2 workers for the same number of epochs.
2. annotate: the base-NP chunker over CoNLL-2000 train+test as tagged Docs
   (DocBin files of 10,948 sentences), repeated to --sentences: single-process
   nlp.pipe (read, annotate, write a DocBin per file) vs
   `spacy_adf.distributed.annotate` with 1 and 2 workers; outputs compared
   (a digest of every Doc's tokens and chunks, in order); then a 2-worker
   run in which one worker process is killed after the first shard.

Writes metrics/distributed.json and the `distributed` section of
docs/benchmarks.md. The machine is shared: the load average before and
after every measurement is recorded with it.

    python -m benchmarks.distributed [--sentences 200000] [--epochs 8] [--stages train annotate]
"""
import argparse
import hashlib
import io
import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Dict, List

from .harness import DATA, REPO, fmt, machine_info, module_command, read_jsonl, run_child, write_json, write_section

CONFIG = REPO / "configs" / "chunking_np.cfg"
WORK = REPO / "training" / "distributed"
METRICS = REPO / "metrics" / "distributed.json"


def load() -> List[float]:
    return list(os.getloadavg())


def conll_overrides(conll: Path, epochs: int) -> Dict[str, object]:
    return {"paths.train": str(conll / "train.txt"), "paths.dev": str(conll / "test.txt"),
            "training.max_epochs": epochs}


# ------------------------------------------------------------------ train


def final_f(model: Path, conll: Path) -> float:
    """Base-NP F of a saved pipeline on the CoNLL-2000 test file (spacy
    train logs its last evaluation at step 980 of 1120: one batch into epoch 8)."""
    import spacy
    from spacy.training import Example

    from spacy_adf.corpora.conll import conll_to_docs

    nlp = spacy.load(model)
    pairs = conll_to_docs(nlp.vocab, conll / "test.txt", columns=["words", "tag", "iob"],
                          iob_target="spans:chunks", keep_labels=["NP"])
    return nlp.evaluate([Example(p, r) for p, r in pairs])["spans_chunks_f"]


def bench_train(conll: Path, epochs: int, shards: List[int], workers: int) -> dict:
    from spacy_adf.distributed.train import IPM

    out = {"epochs": epochs, "workers": workers}
    log = WORK / "single.jsonl"
    cmd = module_command("spacy", "train", CONFIG, "--output", WORK / "single", "--paths.train",
                         conll / "train.txt", "--paths.dev", conll / "test.txt", "--paths.log", log,
                         "--training.max_epochs", epochs)
    before = load()
    child = run_child(cmd, WORK / "single.log")
    records = read_jsonl(log)
    walls = [r["wall_seconds"] for r in records]
    out["single"] = {"f": [r["score"] for r in records], "f_final": final_f(WORK / "single" / "model-last", conll), "wall_seconds": child["wall_seconds"],
                     "epoch_seconds": [b - a for a, b in zip([0.0] + walls, walls)],
                     "peak_rss_mb": child["peak_rss_mb"], "load_before": before, "load_after": load()}
    out["ipm"] = {}
    for n in shards:
        before = load()
        start = time.perf_counter()
        ipm = IPM(CONFIG, WORK / f"ipm{n}", workers=workers, shards=n,
                  overrides=conll_overrides(conll, epochs), stdout=io.StringIO())
        try:
            ipm.start()
            setup = time.perf_counter() - start
            history = ipm.run()
        finally:
            ipm.shutdown()
        out["ipm"][str(n)] = {"f": [h["score"] for h in history],
                              "epoch_seconds": [h["epoch_seconds"] for h in history],
                              "train_seconds": [h["train_seconds"] for h in history],
                              "shard_seconds": [h["shard_seconds"] for h in history],
                              "bytes_per_shard": history[0]["bytes_per_shard"],
                              "wall_seconds": time.perf_counter() - start, "setup_seconds": setup,
                              "load_before": before, "load_after": load()}
        print(f"IPM {n} shards: F {history[-1]['score']:.4f}", flush=True)
    import ray

    ray.shutdown()
    return out


# --------------------------------------------------------------- annotate


def make_corpus(conll: Path, vocab, folder: Path, sentences: int) -> int:
    """DocBin files of CoNLL-2000 train+test tagged Docs (words and POS, no
    chunks), repeated until `sentences`; the number of sentences written."""
    from spacy.tokens import DocBin

    from spacy_adf.corpora.conll import conll_to_docs

    docs = [pred for name in ("train.txt", "test.txt")
            for pred, _ in conll_to_docs(vocab, conll / name, columns=["words", "tag", "iob"],
                                         iob_target="spans:chunks")]
    data = DocBin(docs=docs).to_bytes()
    folder.mkdir(parents=True, exist_ok=True)
    n_files = -(-sentences // len(docs))
    for i in range(n_files):
        (folder / f"part-{i:04d}.spacy").write_bytes(data)
    return n_files * len(docs)


def digest_docs(docs, h=None):
    h = h or hashlib.sha256()
    for d in docs:
        chunks = [(s.start, s.end, s.label_) for s in d.spans.get("chunks", [])]
        h.update(json.dumps([[t.text for t in d], [t.tag_ for t in d], chunks]).encode("utf8"))
    return h


def digest_output(folder: Path, vocab) -> str:
    from spacy.tokens import DocBin

    h = hashlib.sha256()
    for f in sorted(folder.glob("shard-*.spacy")):
        digest_docs(DocBin().from_disk(f).get_docs(vocab), h)
    return h.hexdigest()


def single_process(model: Path, corpus: Path, output: Path) -> dict:
    """What one worker does, in this process: read, nlp.pipe, write."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_adf.distributed.annotate import peak_rss_mb

    nlp = spacy.load(model)
    output.mkdir(parents=True, exist_ok=True)
    n = 0
    start = time.perf_counter()
    for i, f in enumerate(sorted(corpus.glob("*.spacy"))):
        docs = list(nlp.pipe(DocBin().from_disk(f).get_docs(nlp.vocab), batch_size=256))
        (output / f"shard-{i:06d}.spacy").write_bytes(DocBin(docs=docs, store_user_data=True).to_bytes())
        n += len(docs)
    seconds = time.perf_counter() - start
    return {"n_docs": n, "seconds": seconds, "docs_per_second": n / seconds,
            "digest": digest_output(output, nlp.vocab), "peak_rss_mb": peak_rss_mb()}


def bench_annotate(model: Path, conll: Path, sentences: int, workers: List[int]) -> dict:
    import spacy

    from spacy_adf.distributed.annotate import Annotation

    nlp = spacy.load(model)
    corpus = WORK / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    n = make_corpus(conll, nlp.vocab, corpus, sentences)
    out = {"sentences": n, "model": str(model.relative_to(REPO))}
    before = load()
    out["single"] = dict(single_process(model, corpus, WORK / "ann_single"), load_before=before, load_after=load())
    print(f"single process: {out['single']['docs_per_second']:.0f} docs/s", flush=True)
    for w in workers + ["killed"]:
        n_workers = 2 if w == "killed" else w
        folder = WORK / f"ann_{w}"
        shutil.rmtree(folder, ignore_errors=True)
        before = load()
        t0 = time.perf_counter()
        run = Annotation(str(model), str(corpus), str(folder), workers=n_workers, shard_size=10_948,
                         progress=False)
        run.start()
        t_start = time.perf_counter() - t0
        killed = []

        def kill_first(result, run=run, killed=killed):
            if not killed:
                os.kill(run.pids[0], signal.SIGKILL)
                killed.append(run.pids[0])

        try:
            summary = run.run(on_shard=kill_first if w == "killed" else None)
        finally:
            run.shutdown()
            import ray

            ray.shutdown()  # the next run starts its own Ray with its number of CPUs
        summary.update(start_seconds=t_start, total_seconds=time.perf_counter() - t0,
                       digest=digest_output(folder, nlp.vocab), load_before=before, load_after=load(),
                       killed_pid=killed[0] if killed else None)
        summary["identical_to_single"] = summary["digest"] == out["single"]["digest"]
        summary["speedup"] = summary["docs_per_second"] / out["single"]["docs_per_second"]
        summary.pop("bad_lines")
        out[f"ray_{w}"] = summary
        print(f"ray {w}: {summary['docs_per_second']:.0f} docs/s, identical {summary['identical_to_single']}",
              flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(WORK / "ann_single", ignore_errors=True)
    return out


# ----------------------------------------------------------------- report


def steady(seconds: List[float]) -> float:
    """Mean epoch time without the first epoch."""
    rest = seconds[1:] or seconds
    return sum(rest) / len(rest)


def report(data: dict) -> str:
    lines = ["## Distributed annotation and parameter mixing on Ray (`python -m benchmarks.distributed`)", ""]
    m = data["machine"]
    lines.append(f"{m['cores']} cores, {m['cpu']}; embedded Ray {data.get('ray_version')}. The machine was shared "
                 "with other work during the run: the load averages (1 min) before each measurement are given; "
                 "the timings are under that load.")
    lines.append("")
    if "annotate" in data:
        a = data["annotate"]
        lines += [f"### Annotation: base-NP chunker, {a['sentences']:,} sentences (CoNLL-2000 train+test repeated, "
                  "tagged DocBin input)", "",
                  "| run | docs/s | speed-up | run s | Ray start + pipeline load s | identical to nlp.pipe | peak RSS per worker MiB | load before |",
                  "| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |"]
        s = a["single"]
        lines.append(f"| single-process nlp.pipe | {s['docs_per_second']:.0f} | 1.00 | {s['seconds']:.1f} | - | - | "
                     f"{s['peak_rss_mb']:.0f} (the process) | {s['load_before'][0]:.2f} |")
        for key in sorted(k for k in a if k.startswith("ray_")):
            r = a[key]
            rss = ", ".join(f"{v:.0f}" for v in r["peak_rss_mb_per_worker"].values())
            label = "2 workers, one killed after the first shard" if key == "ray_killed" else f"{key[4:]} Ray worker(s)"
            lines.append(f"| {label} | {r['docs_per_second']:.0f} | {r['speedup']:.2f} | {r['seconds']:.1f} | "
                         f"{r['start_seconds']:.1f} | {r['identical_to_single']} ({r['n_docs']:,} docs) | {rss} | "
                         f"{r['load_before'][0]:.2f} |")
        lines.append("")
    if "train" in data:
        t = data["train"]
        lines += [f"### IPM training: CoNLL-2000 base NPs, {t['epochs']} epochs, {t['workers']} Ray workers", "",
                  "| run | F after epoch 1 | final F | F - single | mean epoch s (epochs 2+) | epoch s / single | bytes per shard per direction | load before |",
                  "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
        s = t["single"]
        single_epoch = steady(s["epoch_seconds"])
        lines.append(f"| single-process spacy train | {100 * s['f'][0]:.2f} | {100 * s['f_final']:.2f} | - | "
                     f"{single_epoch:.2f} | 1.00 | - | {s['load_before'][0]:.2f} |")
        for n, r in t["ipm"].items():
            mean = steady(r["epoch_seconds"])
            lines.append(f"| IPM, {n} shard(s) | {100 * r['f'][0]:.2f} | {100 * r['f'][-1]:.2f} | "
                         f"{100 * (r['f'][-1] - s['f_final']):+.2f} | {mean:.2f} | {mean / single_epoch:.2f} | "
                         f"{r['bytes_per_shard']:,} | {r['load_before'][0]:.2f} |")
        lines.append("")
        lines.append("Single-process F after epoch 1 is spacy train's first evaluation (after its first batch: it "
                     "evaluates at steps 0, 140, ...); its final F is model-last scored on the test file after all "
                     "epochs. Epoch times are the mean over epochs 2 and later: the first IPM epoch of runs made before "
                     "IPM.start waited for its actors included their start (each builds the pipeline and reads the "
                     "corpus once). ")
        lines.append("Epoch time = one pass of every shard, mixing, dev evaluation and saving model-last (spacy train's "
                     "epoch also evaluates and saves once per epoch here: eval_frequency = 140 steps = one epoch).")
        lines.append("")
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--sentences", type=int, default=200_000)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--shards", type=int, nargs="+", default=[1, 2, 4, 8])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--stages", nargs="+", default=["train", "annotate"], choices=["train", "annotate"])
    args = p.parse_args()
    from importlib.metadata import version

    conll = args.data / "conll2000"
    WORK.mkdir(parents=True, exist_ok=True)
    data = json.loads(METRICS.read_text()) if METRICS.exists() else {}
    data.update(machine=machine_info(), ray_version=version("ray"))
    if "train" in args.stages:
        data["train"] = bench_train(conll, args.epochs, args.shards, args.workers)
        write_json(METRICS, data)
    if "annotate" in args.stages:
        data["annotate"] = bench_annotate(WORK / "single" / "model-last", conll, args.sentences, [1, 2])
        write_json(METRICS, data)
    write_section(REPO / "docs" / "benchmarks.md", "distributed", report(data))
    print(report(data))


if __name__ == "__main__":
    main()
