"""Distributed annotation and iterative parameter mixing on an embedded Ray
(2 workers on this machine), against single-process spaCy, for two tasks:
the base-NP chunker (CoNLL-2000) and the Weibo word segmenter (NLPCC-2016).

1. train (per task): `spacy train CONFIG` (single process, per-epoch F and
   wall time from the TimingLogger), then IPM with each of --shards on
   --workers workers for the same number of epochs (--epochs; default the
   task's: 8 for NPs, 10 for Weibo), with the per-epoch time breakdown
   (shard training, setting and reading weights in the shards, transfer,
   mixing, evaluation and saving on the driver). Final F: model-last of
   each run scored on the dev corpus (CoNLL-2000 test, NLPCC-2016 dev).
2. annotate (per task): single-process nlp.pipe (read, annotate, write a
   DocBin per shard, the workers' serialization) over --sentences documents
   vs `spacy_adf.distributed.annotate` with 2 workers on the same input;
   1 worker, and 2 workers of which one is killed after the first shard, on
   the first --small-sentences documents. Outputs compared (a digest of every
   Doc's tokens, whitespace, tags and chunks, in order).
   NPs: CoNLL-2000 train+test as tagged Docs (DocBin files of 10,948
   sentences, a shard each) with the chunker trained in stage 1. Weibo: the
   NLPCC-2016 train, dev and test sentences as raw text (words joined
   without spaces), repeated, one line each, in one text file (shards of
   10,000 lines), with the tokenizer form of the segmenter trained in stage
   1 (or --weibo-model).

3. nodes (base NPs): a Ray cluster of 2 nodes on this machine (head and one
   worker node, 1 CPU and its own object store each;
   tests.helpers.local_cluster): IPM with 2 shards of
   configs/chunking_np.cfg as it is (streamed: 8 epochs derived from
   max_steps), its F (CoNLL-2000 test, the file the shipped config logs as
   dev) and set-up and epoch times; then annotation of --node-sentences
   tagged documents with its model-last by 2 workers on the 2 nodes against 2
   workers of an embedded Ray, alternating --node-rounds times, outputs
   compared. Needs no other stage.

Writes --output (metrics/distributed.json) and, unless --no-docs, the
`distributed` section of docs/benchmarks.md. The load average before and
after every measurement is recorded with it.

    python -m benchmarks.distributed [--tasks np weibo] [--stages train annotate nodes]
        [--epochs E] [--shards 2 4 8] [--sentences 1000000] [--small-sentences 200000]
        [--node-sentences 200000] [--node-rounds 2]

Every Ray address stays on loopback (RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0,
set below before Ray is imported).
"""
import os

# before Ray is imported: Ray keeps 127.0.0.1 as the address of the embedded
# Ray and of the local cluster's nodes (tests.helpers.local_cluster)
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

import argparse  # noqa: E402
import hashlib
import io
import itertools
import json
import os
import shutil
import signal
import time
from pathlib import Path
from typing import Iterator, List, Optional

from .harness import DATA, REPO, machine_info, module_command, read_jsonl, run_child, write_json, write_section

WORK = REPO / "training" / "distributed"
METRICS = REPO / "metrics" / "distributed.json"
TASKS = {
    "np": {"config": "chunking_np.cfg", "epochs": 8, "score": "spans_chunks_f", "shard_size": 10_948,
           "title": "base-NP chunker, CoNLL-2000"},
    "weibo": {"config": "seg_zh_weibo.cfg", "epochs": 10, "score": "token_f", "shard_size": 10_000,
              "title": "Weibo word segmenter, NLPCC-2016"},
}
WEIBO_FILES = ["nlpcc2016-word-seg-train.dat", "nlpcc2016-wordseg-dev.dat", "nlpcc2016-wordseg-test.dat"]


def load() -> List[float]:
    return list(os.getloadavg())


def corpus_paths(task: str, data: Path):
    """(train, dev) files of a task."""
    if task == "np":
        return data / "conll2000" / "train.txt", data / "conll2000" / "test.txt"
    return data / "nlpcc2016_weibo" / WEIBO_FILES[0], data / "nlpcc2016_weibo" / WEIBO_FILES[1]


def steady(seconds: List[float]) -> float:
    """Mean epoch time without the first epoch (feature caching, actor warm-up)."""
    rest = seconds[1:] or seconds
    return sum(rest) / len(rest) if rest else float("nan")


# ------------------------------------------------------------------ train


def final_f(task: str, model: Path, dev: Path) -> float:
    """The task's F of a saved pipeline on the dev corpus."""
    import spacy
    from spacy.training import Example

    nlp = spacy.load(model)
    if task == "np":
        from spacy_adf.corpora.conll import conll_to_docs

        pairs = conll_to_docs(nlp.vocab, dev, columns=["words", "tag", "iob"], iob_target="spans:chunks",
                              keep_labels=["NP"])
        examples = [Example(p, r) for p, r in pairs]
    else:
        from spacy_adf.corpora.segmented import SegmentedCorpus

        examples = list(SegmentedCorpus(dev)(nlp))
    return nlp.evaluate(examples)[TASKS[task]["score"]]


def bench_train(task: str, data: Path, epochs: int, shards: List[int], workers: int, eval_every: int) -> dict:
    from spacy_adf.distributed.train import IPM

    config = REPO / "configs" / TASKS[task]["config"]
    train, dev = corpus_paths(task, data)
    work = WORK / task
    out = {"epochs": epochs, "workers": workers, "eval_every": eval_every}
    log = work / "single.jsonl"
    cmd = module_command("spacy", "train", config, "--output", work / "single", "--paths.train", train,
                         "--paths.dev", dev, "--paths.log", log, "--training.max_epochs", epochs)
    before = load()
    child = run_child(cmd, work / "single.log")
    records = read_jsonl(log)
    walls = [r["wall_seconds"] for r in records]
    # the first record is spacy train's evaluation after its first batch (step 0); then one per epoch
    out["single"] = {"f": [r["score"] for r in records], "f_final": final_f(task, work / "single" / "model-last", dev),
                     "wall_seconds": child["wall_seconds"], "log_wall_seconds": walls,
                     "epoch_seconds": [b - a for a, b in zip(walls, walls[1:])],
                     "peak_rss_mb": child["peak_rss_mb"], "load_before": before, "load_after": load()}
    print(f"[{task}] spacy train: F {out['single']['f_final']:.4f}, "
          f"epoch {steady(out['single']['epoch_seconds']):.2f} s", flush=True)
    out["ipm"] = {}
    # exactly `epochs` whole epochs (a streamed config's max_steps would also bound them)
    overrides = {"paths.train": str(train), "paths.dev": str(dev), "training.max_epochs": epochs,
                 "training.max_steps": 0}
    for n in shards:
        before = load()
        start = time.perf_counter()
        folder = work / f"ipm{n}"
        ipm = IPM(config, folder, workers=workers, shards=n, overrides=overrides, eval_every=eval_every,
                  stdout=io.StringIO())
        try:
            ipm.start()
            setup = time.perf_counter() - start
            history = ipm.run()
        finally:
            ipm.shutdown()
        f = final_f(task, folder / "model-last", dev)
        out["ipm"][str(n)] = {"f": [h["score"] for h in history], "f_final": f, "history": history,
                              "epoch_seconds": [h["epoch_seconds"] for h in history],
                              "bytes_per_shard": history[0]["bytes_per_shard"], "shard_sizes": ipm.shard_sizes,
                              "run_seconds": ipm.total_seconds, "setup": ipm.setup,
                              "wall_seconds": time.perf_counter() - start, "setup_seconds": setup,
                              "load_before": before, "load_after": load()}
        print(f"[{task}] IPM {n} shards: F {f:.4f}, epoch {steady(out['ipm'][str(n)]['epoch_seconds']):.2f} s",
              flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    import ray

    ray.shutdown()
    return out


# --------------------------------------------------------------- annotate


def make_np_corpus(model: Path, data: Path, folder: Path, sentences: int) -> int:
    """DocBin files of CoNLL-2000 train+test tagged Docs (words and POS, no
    chunks), repeated until `sentences`; the number of sentences written."""
    import spacy
    from spacy.tokens import DocBin

    from spacy_adf.corpora.conll import conll_to_docs

    vocab = spacy.load(model).vocab
    docs = [pred for name in ("train.txt", "test.txt")
            for pred, _ in conll_to_docs(vocab, data / "conll2000" / name, columns=["words", "tag", "iob"],
                                         iob_target="spans:chunks")]
    blob = DocBin(docs=docs).to_bytes()
    folder.mkdir(parents=True, exist_ok=True)
    n_files = -(-sentences // len(docs))
    for i in range(n_files):
        (folder / f"part-{i:04d}.spacy").write_bytes(blob)
    return n_files * len(docs)


def weibo_lines(data: Path) -> List[str]:
    """Every NLPCC-2016 sentence as raw text (words joined without spaces)."""
    lines = []
    for name in WEIBO_FILES:
        with open(data / "nlpcc2016_weibo" / name, encoding="utf8") as f:
            lines.extend(text for text in ("".join(line.split()) for line in f) if text)
    return lines


def make_weibo_corpus(data: Path, folder: Path, sentences: int) -> int:
    """One text file of `sentences` raw Weibo lines (the corpus repeated)."""
    lines = weibo_lines(data)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "weibo.txt", "w", encoding="utf8") as f:
        for text in itertools.islice(itertools.cycle(lines), sentences):
            f.write(text + "\n")
    return sentences


def prefix_corpus(task: str, corpus: Path, folder: Path, sentences: int) -> int:
    """The first `sentences` documents of `corpus` (NPs: whole files, hard-linked)."""
    folder.mkdir(parents=True, exist_ok=True)
    if task == "weibo":
        with open(corpus / "weibo.txt", encoding="utf8") as f, open(folder / "weibo.txt", "w", encoding="utf8") as g:
            n = 0
            for line in itertools.islice(f, sentences):
                g.write(line)
                n += 1
        return n
    files = sorted(corpus.glob("*.spacy"))
    per_file = TASKS["np"]["shard_size"]
    for f in files[:max(1, -(-sentences // per_file))]:
        os.link(f, folder / f.name)
    return min(len(files), max(1, -(-sentences // per_file))) * per_file


def weibo_tokenizer_form(model_last: Path, folder: Path) -> Path:
    """The tokenizer form (spacy_adf.Segmenter.v1) of a trained adf_segmenter pipeline."""
    import spacy

    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}},
                                    "initialize": {"tokenizer": {"segmenter_model": str(model_last)}}})
    nlp.initialize()
    nlp.to_disk(folder)
    return folder


def digest_docs(docs, h):
    """Hash every Doc's tokens, whitespace, tags (their hashes: the same in
    every process) and chunks."""
    from spacy.attrs import ORTH, SPACY, TAG

    for d in docs:
        h.update(d.to_array([ORTH, SPACY, TAG]).tobytes())
        h.update(repr([(s.start, s.end, s.label_) for s in d.spans.get("chunks", [])]).encode("utf8"))


def digest_output(folder: Path, vocab, limit: Optional[int] = None) -> str:
    """A digest of the first `limit` Docs (all) of the shard files, in order."""
    from spacy.tokens import DocBin

    from spacy_adf.distributed.annotate import cached_msgpack_codecs

    def docs() -> Iterator:
        for f in sorted(folder.glob("shard-*.spacy")):
            yield from DocBin().from_disk(f).get_docs(vocab)

    h = hashlib.sha256()
    with cached_msgpack_codecs():
        digest_docs(itertools.islice(docs(), limit), h)
    return h.hexdigest()


def read_items(path: Path, vocab) -> Iterator:
    """Docs of a DocBin file, or the lines of a text file."""
    if path.suffix == ".spacy":
        from spacy.tokens import DocBin

        yield from DocBin().from_disk(path).get_docs(vocab)
    else:
        with open(path, encoding="utf8") as f:
            for line in f:
                yield line.rstrip("\n")


def single_process(model: Path, corpus: Path, output: Path, shard_size: int) -> dict:
    """Everything a worker does, in this process, with the same shard files
    and the same serialization: read, nlp.pipe, write a DocBin per shard."""
    import spacy

    from spacy_adf.distributed.annotate import cached_msgpack_codecs, docs_to_bytes, peak_rss_mb

    nlp = spacy.load(model)
    output.mkdir(parents=True, exist_ok=True)
    n = shard = 0
    start = time.perf_counter()
    with cached_msgpack_codecs():
        for path in sorted(corpus.iterdir()):
            docs = nlp.pipe(read_items(path, nlp.vocab), batch_size=256)
            while True:
                batch = list(itertools.islice(docs, shard_size))
                if not batch:
                    break
                (output / f"shard-{shard:06d}.spacy").write_bytes(docs_to_bytes(batch, "spacy", any(d.user_data for d in batch))[0])
                shard += 1
                n += len(batch)
    seconds = time.perf_counter() - start
    return {"n_docs": n, "seconds": seconds, "docs_per_second": n / seconds, "peak_rss_mb": peak_rss_mb()}


def ray_run(model: Path, corpus: Path, folder: Path, workers: int, shard_size: int, kill: bool,
            address: Optional[str] = None) -> dict:
    import ray

    from spacy_adf.distributed.annotate import Annotation

    shutil.rmtree(folder, ignore_errors=True)
    before = load()
    t0 = time.perf_counter()
    run = Annotation(str(model), str(corpus), str(folder), workers=workers, shard_size=shard_size, progress=False,
                     address=address)
    t_plan = time.perf_counter() - t0
    run.start()
    t_start = time.perf_counter() - t0 - t_plan
    killed: List[int] = []

    def kill_first(result):
        if not killed:
            os.kill(run.pids[0], signal.SIGKILL)
            killed.append(run.pids[0])

    try:
        summary = run.run(on_shard=kill_first if kill else None)
    finally:
        run.shutdown()
        ray.shutdown()  # the next run starts (or joins) its own Ray
    summary.pop("bad_lines")
    summary.update(workers=workers, plan_seconds=t_plan, start_seconds=t_start,
                   total_seconds=time.perf_counter() - t0, load_before=before, load_after=load(),
                   killed_pid=killed[0] if killed else None)
    return summary


def bench_annotate(task: str, model: Path, data: Path, sentences: int, small: int) -> dict:
    import spacy

    shard_size = TASKS[task]["shard_size"]
    vocab = spacy.load(model).vocab
    corpus, corpus_small = WORK / task / "corpus", WORK / task / "corpus_small"
    for folder in (corpus, corpus_small):
        shutil.rmtree(folder, ignore_errors=True)
    if task == "np":
        n = make_np_corpus(model, data, corpus, sentences)
    else:
        n = make_weibo_corpus(data, corpus, sentences)
    n_small = prefix_corpus(task, corpus, corpus_small, min(small, n))
    out = {"sentences": n, "small_sentences": n_small, "model": str(model), "shard_size": shard_size}
    before = load()
    single_out = WORK / task / "ann_single"
    shutil.rmtree(single_out, ignore_errors=True)
    out["single"] = dict(single_process(model, corpus, single_out, shard_size), load_before=before,
                         load_after=load())
    digests = {n: digest_output(single_out, vocab), n_small: digest_output(single_out, vocab, n_small)}
    shutil.rmtree(single_out, ignore_errors=True)
    print(f"[{task}] single process: {out['single']['docs_per_second']:.0f} docs/s ({n:,} docs)", flush=True)
    runs = [("ray_2", corpus, 2, False), ("ray_1", corpus_small, 1, False), ("ray_killed", corpus_small, 2, True)]
    for key, inp, workers, kill in runs:
        folder = WORK / task / f"ann_{key}"
        summary = ray_run(model, inp, folder, workers, shard_size, kill)
        summary["identical_to_single"] = digest_output(folder, vocab) == digests.get(summary["n_docs"])
        summary["speedup"] = summary["docs_per_second"] / out["single"]["docs_per_second"]
        out[key] = summary
        print(f"[{task}] {key}: {summary['docs_per_second']:.0f} docs/s ({summary['n_docs']:,} docs), "
              f"identical {summary['identical_to_single']}", flush=True)
        shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(corpus, ignore_errors=True)
    shutil.rmtree(corpus_small, ignore_errors=True)
    return out


# ------------------------------------------------------------------ nodes


def cli_summary(cmd: List[str], log: Path) -> dict:
    """Run `python -m spacy_adf.distributed ...` (a fresh process: Ray cannot
    join a cluster from a process that ran an embedded Ray before) and
    return the JSON summary it prints."""
    import subprocess

    with open(log, "w") as err:
        out = subprocess.run(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=err, text=True)
    if out.returncode:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed: see {log}")
    text = out.stdout
    return json.loads(text[text.index("{"):]) if "{" in text else {}


def bench_nodes(data: Path, sentences: int, rounds: int) -> dict:
    """IPM and annotation on a 2-node cluster on this machine (see the module
    doc), each run by the documented command line with --address."""
    import sys

    from tests.helpers.local_cluster import LocalCluster

    config = REPO / "configs" / TASKS["np"]["config"]
    train, dev = corpus_paths("np", data)
    work = WORK / "nodes"
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    cli = [sys.executable, "-m", "spacy_adf.distributed"]
    out: dict = {"nodes": 2, "cpus_per_node": 1}
    t0 = time.perf_counter()
    cluster = LocalCluster(n_workers=1, cpus=1, code=REPO)
    out["cluster_start_seconds"] = time.perf_counter() - t0
    try:
        before = load()
        cli_summary(cli + ["train", str(config), "--workers", "2", "--output", str(work / "ipm"), "--address",
                           cluster.address, "--paths.train", str(train), "--paths.dev", str(dev)],
                    work / "ipm.log")
        state = json.loads((work / "ipm" / "ipm-state" / "state.json").read_text())
        history = state["history"]
        f = final_f("np", work / "ipm" / "model-last", dev)
        out["ipm"] = {"epochs": len(history), "f": [h["score"] for h in history], "f_final": f,
                      "setup": state["setup"], "epoch_seconds": [h["epoch_seconds"] for h in history],
                      "history": history, "load_before": before, "load_after": load()}
        print(f"[nodes] IPM 2 shards on 2 nodes: F {f:.4f} after {len(history)} epochs, set-up "
              f"{state['setup']['setup_seconds']:.1f} s, epoch {steady(out['ipm']['epoch_seconds']):.2f} s", flush=True)
        model = work / "ipm" / "model-last"
        import spacy

        vocab = spacy.load(model).vocab
        corpus = work / "corpus"
        n = make_np_corpus(model, data, corpus, sentences)
        shard_size = TASKS["np"]["shard_size"]
        out["annotate"] = {"sentences": n, "shard_size": shard_size, "embedded": [], "cluster": []}
        digests = set()
        for k in range(rounds):
            for key, address in (("embedded", []), ("cluster", ["--address", cluster.address])):
                folder = work / f"ann_{key}"
                shutil.rmtree(folder, ignore_errors=True)
                before = load()
                summary = cli_summary(cli + ["annotate", str(model), str(corpus), str(folder), "--workers", "2",
                                             "--shard-size", str(shard_size), "--no-progress"] + address,
                                      work / f"ann_{key}_{k}.log")
                summary.update(load_before=before, load_after=load())
                digests.add(digest_output(folder, vocab))
                shutil.rmtree(folder, ignore_errors=True)
                out["annotate"][key].append(summary)
                print(f"[nodes] annotate, {key}: {summary['docs_per_second']:.0f} docs/s ({summary['n_docs']:,} "
                      f"docs), set-up {summary['setup_seconds']:.1f} s", flush=True)
        a = out["annotate"]
        a["identical"] = len(digests) == 1
        mean = {k: sum(r["docs_per_second"] for r in a[k]) / len(a[k]) for k in ("embedded", "cluster")}
        a["cluster_over_embedded"] = mean["cluster"] / mean["embedded"]
        shutil.rmtree(corpus, ignore_errors=True)
    finally:
        cluster.shutdown()
    return out


def report_nodes(n: dict) -> List[str]:
    lines = ["### Two Ray nodes on this machine (head and one worker node, 1 CPU and its own object store each)", ""]
    if "ipm" in n:
        r = n["ipm"]
        s = r["setup"]
        lines += ["| IPM, base NPs, 2 shards on 2 nodes | epochs | final F | set-up s (init_nlp, corpora, Ray, "
                  "actors) | epoch s (mean, epochs 2+) | load before |", "| --- | ---: | ---: | --- | ---: | ---: |",
                  f"| configs/chunking_np.cfg as it is | {r['epochs']} | {100 * r['f_final']:.2f} | "
                  f"{s['setup_seconds']:.1f} ({s['init_nlp_seconds']:.1f}, {s['corpora_seconds']:.1f}, "
                  f"{s['ray_start_seconds']:.1f}, {s['actors_seconds']:.1f}) | {steady(r['epoch_seconds']):.2f} | "
                  f"{r['load_before'][0]:.2f} |", "",
                  "F on CoNLL-2000 test.txt: the file the shipped chunking config logs as its dev corpus (no "
                  "separate dev set), as the other NP results here.", ""]
    if "annotate" in n:
        a = n["annotate"]
        lines += [f"| annotation, base NPs ({a['sentences']:,} tagged documents), 2 workers | docs/s per round | "
                  "set-up s | load before |", "| --- | --- | --- | --- |"]
        for key, label in (("embedded", "embedded Ray, 2 CPUs"), ("cluster", "2 nodes x 1 CPU")):
            runs = a[key]
            speeds = ", ".join(f"{r['docs_per_second']:.0f}" for r in runs)
            setups = ", ".join(f"{r['setup_seconds']:.1f}" for r in runs)
            loads = ", ".join(f"{r['load_before'][0]:.2f}" for r in runs)
            lines.append(f"| {label} | {speeds} | {setups} | {loads} |")
        lines += ["", f"2 nodes / embedded (mean docs/s): {a['cluster_over_embedded']:.2f}; every output identical: "
                  f"{a['identical']}.", ""]
    return lines


# ----------------------------------------------------------------- report


def mean_after_first(history: List[dict], key: str, reduce=max) -> float:
    values = [reduce(h[key]) if isinstance(h[key], list) else h[key] for h in history]
    return steady(values)


def report(data: dict) -> str:
    lines = ["## Distributed annotation and parameter mixing on Ray (`python -m benchmarks.distributed`)", ""]
    m = data["machine"]
    lines.append(f"{m['cores']} cores, {m['cpu']}; embedded Ray {data.get('ray_version')}. The 1-minute load "
                 "averages before each measurement are given: other work on the machine slows every run.")
    lines.append("")
    for task in TASKS:
        if task not in data.get("tasks", {}):
            continue
        title = TASKS[task]["title"]
        if "annotate" in data["tasks"][task]:
            a = data["tasks"][task]["annotate"]
            lines += [f"### Annotation: {title} ({a['sentences']:,} sentences; 1 worker and the killed-worker run: "
                      f"the first {a['small_sentences']:,})", "",
                      "| run | docs | docs/s | speed-up | run s | workers busy | plan + Ray start + pipeline load s "
                      "| identical to nlp.pipe | peak RSS per worker MiB | load before |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |"]
            s = a["single"]
            lines.append(f"| single-process nlp.pipe | {s['n_docs']:,} | {s['docs_per_second']:.0f} | 1.00 | "
                         f"{s['seconds']:.1f} | - | - | - | {s['peak_rss_mb']:.0f} (the process) | {s['load_before'][0]:.2f} |")
            labels = {"ray_2": "2 Ray workers", "ray_1": "1 Ray worker",
                      "ray_killed": "2 workers, one killed after the first shard"}
            for key, label in labels.items():
                if key not in a:
                    continue
                r = a[key]
                rss = ", ".join(f"{v:.0f}" for v in r["peak_rss_mb_per_worker"].values())
                lines.append(f"| {label} | {r['n_docs']:,} | {r['docs_per_second']:.0f} | {r['speedup']:.2f} | "
                             f"{r['seconds']:.1f} | {100 * r['worker_busy']:.0f}% | {r['plan_seconds'] + r['start_seconds']:.1f} | "
                             f"{r['identical_to_single']} | {rss} | {r['load_before'][0]:.2f} |")
            lines += ["", "Workers busy: the share of a run's wall time its workers spent inside shards (reading, "
                      "annotating, writing); the rest is the driver's and Ray's cost and the last shards' tail. "
                      "The single process writes the same shard files with the workers' serialization.", ""]
        if "nodes" in data["tasks"][task]:
            lines += report_nodes(data["tasks"][task]["nodes"])
        if "train" in data["tasks"][task]:
            t = data["tasks"][task]["train"]
            s = t["single"]
            single_epoch = steady(s["epoch_seconds"])
            lines += [f"### IPM training: {title}, {t['epochs']} epochs, {t['workers']} Ray workers", "",
                      "| run | F after epoch 1 | final F | F - single | epoch s (mean, epochs 2+) | epoch / single | "
                      "bytes per shard per direction | load before |",
                      "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
            f1 = s["f"][1] if len(s["f"]) > 1 else s["f"][0]
            lines.append(f"| single-process spacy train | {100 * f1:.2f} | {100 * s['f_final']:.2f} | - | "
                         f"{single_epoch:.2f} | 1.00 | - | {s['load_before'][0]:.2f} |")
            for n, r in t["ipm"].items():
                mean = steady(r["epoch_seconds"])
                lines.append(f"| IPM, {n} shard(s) | {100 * r['f'][0]:.2f} | {100 * r['f_final']:.2f} | "
                             f"{100 * (r['f_final'] - s['f_final']):+.2f} | {mean:.2f} | {mean / single_epoch:.2f} | "
                             f"{r['bytes_per_shard']:,} | {r['load_before'][0]:.2f} |")
            lines += ["", "Driver-side breakdown per IPM epoch (mean over epochs 2+, seconds; evaluation and "
                      "saving overlap the next epoch's training, so they are not part of the epoch time except "
                      "through the CPU they take):", "",
                      "| shards | epoch | wait for shards | slowest shard: train | set + read weights in shard | "
                      "transfer | mix | evaluate | save model-best (thread) |",
                      "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
            for n, r in t["ipm"].items():
                h = r["history"]
                load_state = steady([max(a + b for a, b in zip(x["shard_load_seconds"], x["shard_state_seconds"]))
                                     for x in h])
                lines.append(f"| {n} | {steady(r['epoch_seconds']):.2f} | {mean_after_first(h, 'wait_seconds'):.2f} | "
                             f"{mean_after_first(h, 'shard_train_seconds'):.2f} | {load_state:.3f} | "
                             f"{mean_after_first(h, 'transfer_seconds'):.3f} | {mean_after_first(h, 'mix_seconds'):.3f} | "
                             f"{mean_after_first(h, 'eval_seconds'):.2f} | {mean_after_first(h, 'save_seconds'):.2f} |")
            lines += ["", "Single-process F after epoch 1 is spacy train's evaluation after the first epoch; final F is "
                      "model-last scored on the dev corpus after all epochs (the same for every run). Single-process "
                      "epoch time: the time between spacy train's per-epoch evaluations (training, evaluation, saving "
                      "model-last and model-best). IPM epoch time: the time between two mixes (one pass of every "
                      "shard, transfer, mixing; the driver evaluates epoch e and saves while the shards train "
                      "epoch e + 1).", ""]
    return "\n".join(lines)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--tasks", nargs="+", default=list(TASKS), choices=list(TASKS))
    p.add_argument("--stages", nargs="+", default=["train", "annotate", "nodes"],
                   choices=["train", "annotate", "nodes"])
    p.add_argument("--sentences", type=int, default=1_000_000, help="documents for single-process and 2 workers")
    p.add_argument("--small-sentences", type=int, default=200_000,
                   help="documents for the 1-worker and killed-worker runs")
    p.add_argument("--node-sentences", type=int, default=200_000,
                   help="nodes stage: documents annotated on 2 nodes and on the embedded Ray")
    p.add_argument("--node-rounds", type=int, default=2, help="nodes stage: alternating rounds of each")
    p.add_argument("--epochs", type=int, default=None, help="epochs of every training run (default: 8 NPs, 10 Weibo)")
    p.add_argument("--shards", type=int, nargs="+", default=[2, 4, 8])
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--eval-every", type=int, default=1, help="IPM: evaluate every E epochs (and after the last)")
    p.add_argument("--weibo-model", type=Path, default=None,
                   help="Weibo annotation pipeline (default: the tokenizer form of stage 1's spacy train model)")
    p.add_argument("--output", type=Path, default=METRICS, help="the JSON file")
    p.add_argument("--no-docs", action="store_true", help="do not write docs/benchmarks.md")
    args = p.parse_args()
    from importlib.metadata import version

    WORK.mkdir(parents=True, exist_ok=True)
    data = json.loads(args.output.read_text()) if args.output.exists() else {}
    data.pop("train", None), data.pop("annotate", None)  # the one-task layout of earlier runs
    data.update(machine=machine_info(), ray_version=version("ray"))
    data.setdefault("tasks", {})
    for task in args.tasks:
        results = data["tasks"].setdefault(task, {})
        (WORK / task).mkdir(parents=True, exist_ok=True)
        if "train" in args.stages:
            epochs = args.epochs or TASKS[task]["epochs"]
            results["train"] = bench_train(task, args.data, epochs, args.shards, args.workers, args.eval_every)
            write_json(args.output, data)
        if "nodes" in args.stages and task == "np":
            results["nodes"] = bench_nodes(args.data, args.node_sentences, args.node_rounds)
            write_json(args.output, data)
        if "annotate" in args.stages:
            model = WORK / task / "single" / "model-last"
            if task == "weibo" and args.weibo_model is not None:
                model = args.weibo_model
            if not model.exists():
                raise SystemExit(f"no pipeline at {model}: run the train stage first")
            if task == "weibo" and args.weibo_model is None:
                model = weibo_tokenizer_form(model, WORK / task / "tokenizer_form")
            results["annotate"] = bench_annotate(task, model, args.data, args.sentences, args.small_sentences)
            write_json(args.output, data)
    text = report(data)
    if not args.no_docs:
        write_section(REPO / "docs" / "benchmarks.md", "distributed", text)
    print(text)


if __name__ == "__main__":
    main()
