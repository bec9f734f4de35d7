"""The same saved models run by two checkouts of spacy-adf (e.g. an older
commit and this one): nlp.pipe speed side by side, and whether the outputs
are identical. "Did a refactor slow anything down?" measured, not guessed.

Each (checkout, model) pass runs in a fresh process whose ``PYTHONPATH``
starts with that checkout (built in place: ``python setup.py build_ext
--inplace``), so the two never share a module. The rounds alternate the
checkouts (old, new, then new, old, ...) so that a change of machine load hits
both; each process reports the best of `--repeats` timed passes after one
warm-up pass, and the table gives the best round of each checkout.
The models must load in both checkouts (save them with the older one).

    python -m benchmarks.code_versions --old ../old-checkout --new . \\
        --model tagger=DIR --model segmenter=DIR ... [--rounds 3]

Kinds and their inputs (read from `--data`, outside the clock):
tagger / pke_tagger: CoNLL-2000 test sentences with their POS tags;
segmenter / pke_segmenter: KWDLC test sentences as raw text (nlp.pipe of
strings: the character tokenizer or the segmenter tokenizer first);
dependency: KWDLC test with gold bunsetsu and POS, no heads;
textcat: the Blitzer books reviews (their feature counts), one Doc each.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List

KINDS = ("tagger", "pke_tagger", "segmenter", "pke_segmenter", "dependency", "textcat")
HERE = Path(__file__).resolve()


# ------------------------------------------------------------ worker (runs in the checkout's process)

def _conll_docs(vocab, path: Path) -> list:
    from spacy.tokens import Doc

    docs, words, tags = [], [], []
    for line in path.read_text(encoding="utf8").splitlines() + [""]:
        if line.strip():
            w, t = line.split()[:2]
            words.append(w)
            tags.append(t)
        elif words:
            docs.append(Doc(vocab, words=words, tags=tags))
            words, tags = [], []
    return docs


def _inputs(kind: str, nlp, data: Path):
    """(inputs, units counted: tokens or characters, unit name); Docs are
    rebuilt per pass by `fresh`, outside the clock."""
    if kind in ("tagger", "pke_tagger"):
        docs = _conll_docs(nlp.vocab, data / "conll2000" / "test.txt")
        return docs, sum(len(d) for d in docs), "tokens"
    if kind in ("segmenter", "pke_segmenter", "dependency"):
        from spacy_adf.corpora.bunsetsu import bunsetsu_docs

        refs = list(bunsetsu_docs(data / "kwdlc" / "test.knp", nlp.vocab, format="knp", bad_heads="skip"))
        if kind == "dependency":
            return refs, len(refs), "sentences"
        texts = [r.text for r in refs]
        return texts, sum(len(t) for t in texts), "chars"
    if kind == "textcat":
        from spacy_adf.corpora.blitzer import make_example, read_reviews

        reviews = []
        for name in ("positive.review", "negative.review"):
            reviews += read_reviews(data / "blitzer_sentiment" / "books" / name)
        docs = [make_example(nlp.vocab, r).predicted for r in reviews]  # the feature counts on each Doc
        return docs, len(docs), "docs"
    raise ValueError(f"unknown kind {kind!r}; one of {KINDS}")


def _fresh(kind: str, nlp, inputs):
    from spacy.tokens import Doc

    if kind in ("tagger", "pke_tagger"):
        return [Doc(nlp.vocab, words=[t.text for t in d], tags=[t.tag_ for t in d]) for d in inputs]
    if kind == "dependency":
        from spacy_adf.corpora.bunsetsu import make_predicted

        return [make_predicted(r) for r in inputs]
    if kind == "textcat":
        return [Doc(nlp.vocab, words=[t.text for t in d], user_data=dict(d.user_data)) for d in inputs]
    return list(inputs)


def _output(kind: str, doc) -> list:
    if kind in ("tagger", "pke_tagger"):
        return [(s.start, s.end, s.label_) for s in doc.spans["chunks"]]
    if kind in ("segmenter", "pke_segmenter"):
        return [t.text for t in doc if not t.is_space]
    if kind == "dependency":
        return [t.head.i for t in doc]
    return sorted((k, round(v, 5)) for k, v in doc.cats.items())


def worker(kind: str, model: Path, data: Path, repeats: int, batch_size: int) -> Dict:
    import spacy

    import spacy_adf

    nlp = spacy.load(model)
    inputs, n_units, unit = _inputs(kind, nlp, data)
    best = float("inf")
    digest = None
    for k in range(repeats + 1):  # pass 0 warms up (caches, token tables)
        batch = _fresh(kind, nlp, inputs)
        start = time.perf_counter()
        out = list(nlp.pipe(batch, batch_size=batch_size))
        seconds = time.perf_counter() - start
        if k:
            best = min(best, seconds)
        if digest is None:
            digest = hashlib.sha1(json.dumps([_output(kind, d) for d in out]).encode("utf8")).hexdigest()
    return {"kind": kind, "spacy_adf": str(Path(spacy_adf.__file__).parent.parent), "units": n_units,
            "unit": unit, "seconds": best, "per_s": n_units / best, "output_sha1": digest}


# ------------------------------------------------------------ driver

def _run(checkout: Path, kind: str, model: Path, args) -> Dict:
    env = dict(os.environ, PYTHONPATH=str(checkout.resolve()))
    # run as a file, not on sys.path: benchmarks/ (its packaging.py shadows
    # the `packaging` library) must not come first
    launcher = f"import runpy, sys; sys.argv = sys.argv[1:]; runpy.run_path({str(HERE)!r}, run_name='__main__')"
    cmd = [sys.executable, "-c", launcher, str(HERE), "worker", "--kind", kind, "--model", str(model.resolve()),
           "--data", str(args.data.resolve()), "--repeats", str(args.repeats), "--batch-size", str(args.batch_size)]
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd="/")
    if done.returncode != 0:
        raise RuntimeError(f"{kind} with {checkout} failed:\n{done.stderr[-3000:]}")
    row = json.loads(done.stdout.strip().splitlines()[-1])
    if Path(row["spacy_adf"]).resolve() != checkout.resolve():
        raise RuntimeError(f"{kind}: the process imported spacy_adf from {row['spacy_adf']}, not {checkout}")
    return row


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["worker"]:
        p = argparse.ArgumentParser()
        p.add_argument("--kind", required=True, choices=KINDS)
        p.add_argument("--model", type=Path, required=True)
        p.add_argument("--data", type=Path, required=True)
        p.add_argument("--repeats", type=int, default=3)
        p.add_argument("--batch-size", type=int, default=256)
        a = p.parse_args(argv[1:])
        print(json.dumps(worker(a.kind, a.model, a.data, a.repeats, a.batch_size)))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--old", type=Path, required=True, help="the older checkout, built in place")
    p.add_argument("--new", type=Path, default=HERE.parents[1], help="the newer checkout (default: this one)")
    p.add_argument("--model", action="append", required=True, help="KIND=MODEL_DIR, repeatable")
    p.add_argument("--data", type=Path, default=HERE.parents[1].parent / "shared" / "data")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--out-json", type=Path, default=HERE.parents[1] / "metrics" / "bench_code_versions.json")
    args = p.parse_args(argv)
    models = [(k, Path(v)) for k, v in (m.split("=", 1) for m in args.model)]
    results: Dict[str, Dict[str, List[Dict]]] = {}
    for kind, model in models:
        results[kind] = {"old": [], "new": []}
        for r in range(args.rounds):
            # the order alternates too: whatever the second process of a
            # round meets (a warmer cache, another job's phase) hits both
            for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                row = _run(getattr(args, side), kind, model, args)
                results[kind][side].append(row)
                print(f"[versions] {kind} round {r + 1}/{args.rounds} {side}: {row['per_s']:,.0f} "
                      f"{row['unit']}/s", flush=True)
    table = []
    for kind, sides in results.items():
        old = max(sides["old"], key=lambda x: x["per_s"])
        new = max(sides["new"], key=lambda x: x["per_s"])
        same = len({x["output_sha1"] for x in sides["old"] + sides["new"]}) == 1
        table.append({"kind": kind, "unit": old["unit"], "old_per_s": old["per_s"], "new_per_s": new["per_s"],
                      "new_vs_old": new["per_s"] / old["per_s"], "identical_output": same})
    report = {"old": str(args.old.resolve()), "new": str(args.new.resolve()), "rounds": args.rounds,
              "repeats": args.repeats, "load_average_at_end": list(os.getloadavg()), "table": table,
              "runs": results}
    args.out_json.parent.mkdir(parents=True, exist_ok=True)
    args.out_json.write_text(json.dumps(report, indent=2) + "\n", encoding="utf8")
    print(f"{'kind':<14} {'unit':<9} {'old/s':>12} {'new/s':>12} {'new/old':>8}  same output")
    for t in table:
        print(f"{t['kind']:<14} {t['unit']:<9} {t['old_per_s']:>12,.0f} {t['new_per_s']:>12,.0f} "
              f"{t['new_vs_old']:>8.2f}  {t['identical_output']}")
    return 0 if all(t["identical_output"] for t in table) else 1


if __name__ == "__main__":
    sys.exit(main())
