"""pke_dependency on long multi-sentence Docs: parse time vs Doc size.

Trains a parser on the synthetic KNP corpus of the tests
(`tests.helpers.dep_data.knp_text`: no data files needed), then parses Docs
of about 1k, 5k, 10k and 20k bunsetsu, each made by joining held-out
synthetic sentences (every one ends with 。, no sentence annotation, so the
punctuation rule finds the sentences). Each Doc is parsed sentence by
sentence; the time should grow linearly with its size (seconds per 1,000
bunsetsu about constant). For the sizes up to `--one-sentence-max` the same
Doc is also parsed as one sentence (``is_sent_start`` False after the first
token), the behaviour before sentence-by-sentence parsing, which grows about
quadratically.

    python -m benchmarks.dependency_sentences
    python -m benchmarks.dependency_sentences --sizes 200,400 --train-sentences 120 --repeats 1

Reported per size: bunsetsu, tokens, sentences, parse seconds (best of
`--repeats`, `pipe(doc)`: sentence split, features, cascaded chunking,
classifier, token tree; building the Doc not included), seconds per 1,000
bunsetsu, and the one-sentence seconds. Output: JSON (`--out-json`) and, with
`--out-md`, a Markdown section between `<!-- bench_dependency_sentences:start -->`
and `<!-- bench_dependency_sentences:end -->`.
"""
import argparse
import tempfile
import time
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import spacy
from spacy.tokens import Doc
from spacy.training import Example

from benchmarks.harness import REPO, fmt, machine_info, publish
from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY
from tests.helpers.dep_data import knp_text

NAME = "bench_dependency_sentences"
SIZES = (1000, 5000, 10000, 20000)


def train_pipeline(n_sentences: int, classifier: str, degree: int, workdir: Path):
    """A blank pipeline with pke_dependency trained on `n_sentences`
    synthetic sentences."""
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": degree, "classifier": classifier})
    path = workdir / "train.knp"
    path.write_text(knp_text(n_sentences, seed=0, prefix="tr"), encoding="utf8")
    train = [Example(make_predicted(ref), ref) for ref in bunsetsu_docs(path, nlp.vocab)]
    nlp.initialize(lambda: train)
    return nlp


def joined_doc(vocab, refs: Sequence[Doc], one_sentence: bool = False) -> Doc:
    """One Doc of the sentences `refs`: words, POS, morphs and bunsetsu spans,
    no tree; with `one_sentence`, sentence annotation that makes it one
    sentence."""
    words, spaces, tags, pos, morphs, lemmas, bounds = [], [], [], [], [], [], []
    for ref in refs:
        for t in ref:
            words.append(t.text)
            spaces.append(bool(t.whitespace_))
            tags.append(t.tag_)
            pos.append(t.pos_)
            morphs.append(str(t.morph))
            lemmas.append(t.lemma_)
        offset = len(words) - len(ref)
        bounds.extend((offset + s.start, offset + s.end) for s in ref.spans[BUNSETSU_KEY])
    sent_starts = [True] + [False] * (len(words) - 1) if one_sentence else None
    doc = Doc(vocab, words=words, spaces=spaces, tags=tags, pos=pos, morphs=morphs, lemmas=lemmas,
              sent_starts=sent_starts)
    doc.spans[BUNSETSU_KEY] = [doc[s:e] for s, e in bounds]
    return doc


def sentences_for(refs: Sequence[Doc], n_bunsetsu: int) -> List[Doc]:
    """Sentences taken from `refs` in turn until they hold `n_bunsetsu` bunsetsu."""
    out, n = [], 0
    while n < n_bunsetsu:
        ref = refs[len(out) % len(refs)]
        out.append(ref)
        n += len(ref.spans[BUNSETSU_KEY])
    return out


def time_parse(pipe, make_doc, repeats: int) -> Dict:
    """Best seconds of `pipe(doc)` over `repeats` fresh Docs, and the last Doc."""
    best, doc = None, None
    for _ in range(repeats):
        doc = make_doc()
        start = time.perf_counter()
        pipe(doc)
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
    return {"seconds": best, "doc": doc}


def run(sizes: Sequence[int], train_sentences: int, test_sentences: int, classifier: str, degree: int,
        repeats: int, one_sentence_max: int) -> Dict:
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        start = time.perf_counter()
        nlp = train_pipeline(train_sentences, classifier, degree, workdir)
        train_seconds = time.perf_counter() - start
        test_path = workdir / "test.knp"
        test_path.write_text(knp_text(test_sentences, seed=1, prefix="te"), encoding="utf8")
        refs = list(bunsetsu_docs(test_path, nlp.vocab))
    pipe = nlp.get_pipe("pke_dependency")
    pipe(joined_doc(nlp.vocab, refs))  # warm-up: first-call costs stay out of the timings
    rows = []
    for size in sizes:
        sents = sentences_for(refs, size)
        timed = time_parse(pipe, lambda: joined_doc(nlp.vocab, sents), repeats)
        doc = timed["doc"]
        heads = doc.spans[BUNSETSU_KEY].attrs["heads"]
        n_sents = len(list(doc.sents))
        if heads.count(-1) != len(sents) or n_sents != len(sents):
            raise RuntimeError(f"size {size}: {heads.count(-1)} roots and {n_sents} doc.sents for "
                               f"{len(sents)} sentences")
        row = {"bunsetsu": len(heads), "tokens": len(doc), "sentences": len(sents),
               "parse_seconds": timed["seconds"],
               "seconds_per_1k_bunsetsu": 1000 * timed["seconds"] / len(heads),
               "one_sentence_seconds": None}
        if size <= one_sentence_max:
            one = time_parse(pipe, lambda: joined_doc(nlp.vocab, sents, one_sentence=True), repeats)
            assert one["doc"].spans[BUNSETSU_KEY].attrs["heads"].count(-1) == 1
            row["one_sentence_seconds"] = one["seconds"]
        rows.append(row)
        print(f"{row['bunsetsu']:>7} bunsetsu {row['sentences']:>6} sentences: "
              f"{row['parse_seconds']:.3f} s ({row['seconds_per_1k_bunsetsu']:.3f} s / 1k bunsetsu)"
              f", one sentence: {fmt(row['one_sentence_seconds'], '.3f')} s", flush=True)
    per_1k = [r["seconds_per_1k_bunsetsu"] for r in rows]
    stats = pipe.cfg["stats"]
    return {
        "machine": machine_info(),
        "config": {"sizes": list(sizes), "train_sentences": train_sentences,
                   "test_sentences": test_sentences, "classifier": classifier, "degree": degree,
                   "repeats": repeats, "one_sentence_max": one_sentence_max},
        "training": {"seconds": train_seconds, "n_sv": stats.get("n_sv"),
                     "n_features": stats.get("n_features")},
        "rows": rows,
        # 1.0 = exactly linear: seconds per bunsetsu of the largest Doc over the smallest's
        "per_bunsetsu_ratio_largest_to_smallest": per_1k[-1] / per_1k[0] if per_1k and per_1k[0] else None,
    }


def markdown(result: Dict) -> str:
    cfg = result["config"]
    lines = [
        "## pke_dependency: parse time vs Doc size (sentence by sentence)",
        "",
        f"`python -m benchmarks.dependency_sentences` (synthetic corpus, {cfg['train_sentences']} training "
        f"sentences, {cfg['classifier'].upper()} degree {cfg['degree']}, best of {cfg['repeats']}; "
        f"{result['machine']['cores']} cores, commit {result['machine']['git_commit']}).",
        "",
        "| bunsetsu | sentences | tokens | parse s | s / 1k bunsetsu | as one sentence, s |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in result["rows"]:
        lines.append(f"| {r['bunsetsu']:,} | {r['sentences']:,} | {r['tokens']:,} | {r['parse_seconds']:.3f} | "
                     f"{r['seconds_per_1k_bunsetsu']:.3f} | {fmt(r['one_sentence_seconds'], '.3f', '-')} |")
    ratio = result["per_bunsetsu_ratio_largest_to_smallest"]
    lines += ["", f"Seconds per bunsetsu, largest Doc over smallest: {fmt(ratio)} (1.00 = linear)."]
    return "\n".join(lines) + "\n"


def main(argv: Optional[List[str]] = None) -> Dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)),
                    help="comma-separated Doc sizes in bunsetsu (default %(default)s)")
    ap.add_argument("--train-sentences", type=int, default=300)
    ap.add_argument("--test-sentences", type=int, default=200,
                    help="distinct held-out sentences the Docs are made of")
    ap.add_argument("--classifier", default="pke", choices=["pkb", "pki", "pke"])
    ap.add_argument("--degree", type=int, default=2)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--one-sentence-max", type=int, default=5000,
                    help="also time sizes up to this as one sentence (0: never)")
    ap.add_argument("--out-json", default=str(REPO / "metrics" / f"{NAME}.json"))
    ap.add_argument("--out-md", default=None, help="write the Markdown section to this file")
    args = ap.parse_args(argv)
    sizes = [int(float(s)) for s in args.sizes.split(",") if s.strip()]
    result = run(sizes, args.train_sentences, args.test_sentences, args.classifier, args.degree,
                 max(args.repeats, 1), args.one_sentence_max)
    publish(result, Path(args.out_json), Path(args.out_md) if args.out_md else None, NAME, markdown(result))
    return result


if __name__ == "__main__":
    main()
