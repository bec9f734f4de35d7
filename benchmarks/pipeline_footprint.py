"""What a shipped pipeline costs the user beside its scores: size on disk,
load time and peak RSS loaded alone, and nlp.pipe with n_process=1 and 2
against blank spaCy's n_process=2 on the same texts (spaCy's own floor of
sending Docs between processes).

    python -m benchmarks.pipeline_footprint --pipeline en=training/pipeline_en:en \\
        --pipeline ja=training/pipeline_ja:ja --short ../shared/data/conll2000/test.txt

Every figure is a fresh child process (its wall time and ru_maxrss), one at
a time. Short docs: --n-short sentences (the CoNLL-2000 test sentences, as
text, cycled); long docs: --n-long texts of about 3,000 characters made of
the same sentences. Writes metrics/bench_pipeline_footprint.json and its
section of docs/benchmarks.md.
"""
import argparse
import json
import sys
import time
from pathlib import Path

from .harness import BENCHMARKS_MD, REPO, fmt, machine_info, module_command, publish, repo_state, run_child

NAME = "bench_pipeline_footprint"


def conll_sentences(path: Path):
    """The sentences of a CoNLL column file as plain text (words joined by spaces)."""
    out, words = [], []
    for line in Path(path).read_text(encoding="utf8").splitlines():
        if line.strip():
            words.append(line.split()[0])
        elif words:
            out.append(" ".join(words))
            words = []
    if words:
        out.append(" ".join(words))
    return out


def texts_of(path: Path, n: int, length: int):
    sents = conll_sentences(path)
    if length <= 0:
        return [sents[i % len(sents)] for i in range(n)]
    texts, k = [], 0
    for _ in range(n):
        parts, size = [], 0
        while size < length:
            parts.append(sents[k % len(sents)])
            size += len(parts[-1]) + 1
            k += 1
        texts.append(" ".join(parts))
    return texts


def child(argv) -> int:
    """One measurement: load the pipeline (or blank:LANG), pipe the texts,
    print the timings as JSON."""
    p = argparse.ArgumentParser()
    p.add_argument("--model", required=True)
    p.add_argument("--short", type=Path, default=None)
    p.add_argument("--n", type=int, default=0)
    p.add_argument("--length", type=int, default=0)
    p.add_argument("--n-process", type=int, default=1)
    p.add_argument("--batch-size", type=int, default=256)
    args = p.parse_args(argv)
    import spacy

    start = time.perf_counter()
    nlp = spacy.blank(args.model[6:]) if args.model.startswith("blank:") else spacy.load(args.model)
    out = {"load_seconds": time.perf_counter() - start}
    if args.n:
        texts = texts_of(args.short, args.n, args.length)
        start = time.perf_counter()
        n_tokens = sum(len(doc) for doc in nlp.pipe(texts, n_process=args.n_process, batch_size=args.batch_size))
        out.update(pipe_seconds=time.perf_counter() - start, n_tokens=n_tokens,
                   n_chars=sum(len(t) for t in texts))
    print("RESULT " + json.dumps(out))
    return 0


def measure(args, model: str, log: Path, **kw):
    cmd = module_command("benchmarks.pipeline_footprint", "child", "--model", model)
    for key, value in kw.items():
        cmd += [f"--{key.replace('_', '-')}", value]
    result = run_child(cmd, log)
    line = [x for x in log.read_text(encoding="utf8").splitlines() if x.startswith("RESULT ")][-1]
    result.update(json.loads(line[len("RESULT "):]))
    return result


def dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "child":
        return child(argv[1:])
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pipeline", action="append", default=[],
                   help="NAME=DIR:LANG (LANG: the blank spaCy compared in the multiprocess rows)")
    p.add_argument("--short", type=Path, default=REPO.parent / "shared" / "data" / "conll2000" / "test.txt")
    p.add_argument("--n-short", type=int, default=10_000)
    p.add_argument("--n-long", type=int, default=1_000)
    p.add_argument("--processes", default="en", help="comma-separated pipeline names given the nlp.pipe rows")
    p.add_argument("--workdir", type=Path, default=Path("/tmp/bench_pipeline_footprint"))
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / f"{NAME}.json")
    p.add_argument("--out-md", type=Path, default=BENCHMARKS_MD)
    args = p.parse_args(argv)
    args.workdir.mkdir(parents=True, exist_ok=True)
    rows, pipes = {}, {}
    for spec in args.pipeline:
        name, rest = spec.split("=", 1)
        path, lang = rest.rsplit(":", 1)
        print(f"[footprint] {name}: load alone", flush=True)
        r = measure(args, path, args.workdir / f"{name}_load.log")
        rows[name] = {"path": path, "disk_mb": dir_bytes(REPO / path) / 1e6, "load_seconds": r["load_seconds"],
                      "load_peak_rss_mb": r["peak_rss_mb"]}
        if name in args.processes.split(","):
            # long docs in batches of 64: 1,000 docs in spaCy's default batches of 1,000
            # would all go to one process
            for label, model, n_process, n, length, batch in (
                ("blank_short_2", f"blank:{lang}", 2, args.n_short, 0, 256),
                ("short_1", path, 1, args.n_short, 0, 256), ("short_2", path, 2, args.n_short, 0, 256),
                ("long_1", path, 1, args.n_long, 3000, 64), ("long_2", path, 2, args.n_long, 3000, 64),
            ):
                print(f"[footprint] {name}: {label}", flush=True)
                r = measure(args, model, args.workdir / f"{name}_{label}.log", short=args.short, n=n,
                            length=length, n_process=n_process, batch_size=batch)
                pipes.setdefault(name, {})[label] = {"seconds": r["pipe_seconds"], "peak_rss_mb": r["peak_rss_mb"]}
    report = {"machine": machine_info(), "code": repo_state(), "pipelines": rows, "n_process": pipes,
              "n_short": args.n_short, "n_long": args.n_long}
    lines = ["| pipeline | on disk | load | peak RSS loaded alone |", "| --- | --- | --- | --- |"]
    for name, r in rows.items():
        lines.append(f"| {name} | {fmt(r['disk_mb'], '.1f')} MB | {fmt(r['load_seconds'], '.2f')} s | "
                     f"{fmt(r['load_peak_rss_mb'], '.0f')} MB |")
    for name, r in pipes.items():
        lines += ["", f"`nlp.pipe` of {name} ({args.n_short:,} short docs; {args.n_long:,} docs of about "
                  "3,000 characters, batches of 64), pipe time without loading:", "",
                  "| | short docs | long docs |", "| --- | --- | --- |",
                  f"| blank spaCy, n_process=2 | {fmt(r['blank_short_2']['seconds'])} s | |",
                  f"| n_process=1 | {fmt(r['short_1']['seconds'])} s | {fmt(r['long_1']['seconds'])} s |",
                  f"| n_process=2 | {fmt(r['short_2']['seconds'])} s | {fmt(r['long_2']['seconds'])} s |"]
    lines += ["", "`python -m benchmarks.pipeline_footprint` (`spacy project run bench-footprint`)"]
    publish(report, args.out_json, args.out_md, NAME, "\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
