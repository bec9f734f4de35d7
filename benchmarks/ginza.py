"""GiNZA's bunsetsu dependency accuracy and speed on KWDLC test, for comparison.

GiNZA (``ginza`` + ``ja_ginza``) is a spaCy Japanese pipeline: SudachiPy
tokenizer (split mode C), a UD dependency parser, and ``bunsetu_recognizer``,
which derives bunsetsu from the UD tree. It is not trained on KWDLC and uses
UD/UniDic conventions, so this is a cross-convention comparison (caveats below).
Run it from the repository root with a Python that has GiNZA installed, e.g.
a separate venv:

    python3 -m venv ../ginza-venv && ../ginza-venv/bin/pip install ginza ja_ginza
    ../ginza-venv/bin/python -m benchmarks.ginza [--test ../shared/data/kwdlc/test.knp]
        [--limit N] [--output metrics/bench_ginza.json] [--repeats 2]

Gold: the KNP file, read with ``spacy_adf.corpora.knp.read_knp`` if the
checkout's spacy_adf (found from the repository root, its compiled extensions
built for this Python) imports, else with the tiny reader below (``# S-ID:``, ``* <head><type>``,
morpheme lines whose first field is the surface, ``EOS``; ``+`` lines skipped).
GiNZA parses the raw sentence text (the concatenated surfaces; KWDLC has no
whitespace morphemes, so character offsets are the same on both sides).

GiNZA bunsetsu: ``ginza.bunsetu_spans(doc)`` (checked to tile the Doc; if they
do not, the B/I labels ``ginza.bunsetu_bi_labels`` that GiNZA's own CaboCha
output uses are taken for that Doc, and counted). A GiNZA bunsetsu's head:

* ``raw``: GiNZA's CaboCha-output rule (``ginza.analyzer.cabocha_bunsetu_line``):
  the bunsetsu holding the UD head of the rightmost token of the bunsetsu whose
  head is outside it; -1 if none (a sentence root). GiNZA may split a KWDLC
  sentence into several sentences (``doc.sents``); each part then has a root.
* ``head_final`` (main figure): the same, then UD's leftward ``conj`` arcs made
  head-final as KNP writes coordination (if c1 < ... < ck point left to h, then
  h -> c1 -> ... -> ck -> the old head of h) -- exactly the conversion spacy_adf
  applies to UD Japanese gold (``ud_to_bunsetsu_heads``), so GiNZA is not
  penalised for UD's coordination convention.

Alignment (by character offsets; a bunsetsu is the interval [start, end)):

* dependency accuracy (strict, main): a gold bunsetsu i that is not its
  sentence's last, with gold head h, is correct iff GiNZA has a bunsetsu that
  ends where gold i ends and that bunsetsu's head (a GiNZA bunsetsu) ends where
  gold h ends. Only end offsets are compared: Japanese bunsetsu are head-final
  units (content word + trailing function words), so the end marks the unit
  that attaches, and a differently placed start (e.g. GiNZA splitting off or
  merging a prefix / an opening bracket) does not by itself make the arc wrong.
  A gold boundary GiNZA does not reproduce makes the arc wrong.
* dependency accuracy (lenient): each gold bunsetsu is mapped to the GiNZA
  bunsetsu that contains its last character; i is correct iff i and h map to
  different GiNZA bunsetsu and GiNZA's head of i's bunsetsu is h's bunsetsu.
  (Merging i with its head is wrong; a boundary placed one character off is not.)
* also reported: strict accuracy restricted to gold bunsetsu whose own end and
  whose head's end GiNZA reproduces (attachment errors only).
* dependency accuracy (exact spans), as spacy_adf's bunsetsu scorer counts it
  with predicted bunsetsu: i is correct iff GiNZA has a bunsetsu with exactly
  i's (start, end) and its head has exactly h's (start, end).
* sentence accuracy: sentences whose scored bunsetsu are all correct (strict),
  over all sentences (one-bunsetsu sentences count as correct, as in the usual
  Kudo & Matsumoto style evaluation); the exact-spans variant also requires
  GiNZA's segmentation of the sentence to equal the gold one.
* bunsetsu segmentation: boundary P/R/F over internal boundaries (the end
  offsets of all bunsetsu but each sentence's last) and span P/R/F over exact
  (start, end) pairs.

Speed (one process, BLAS/OpenMP threads set to ``--threads``, default 1):
wall-clock sentences per second of ``nlp.pipe`` over the test texts (full
GiNZA pipeline: SudachiPy tokenizer, tok2vec, parser, ner, morphologizer,
compound_splitter, bunsetu_recognizer), best of ``--repeats`` passes after a
short warm-up; then one pass component by component (``nlp.make_doc`` for all
texts, then each component over all Docs), which gives the tokenizer's and each component's own time. The parser reads
tok2vec's output (``doc.tensor``), so "parser" alone excludes tok2vec;
"tok2vec + parser + bunsetu_recognizer" is the cost of the parse given tokens.
CPU seconds (``time.process_time``) are recorded too: on a shared machine they
are less affected by other processes than wall-clock time.
"""
import argparse
import importlib.util
import os
import re
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from benchmarks.harness import DATA, EGG_INFO, REPO, machine_info, version_or_none, write_json

# the UD -> bunsetsu head conversion, standard library only (the fallback loads it by path)
UD_HEADS_FILE = REPO / "spacy_adf" / "lang" / "ja" / "ud_heads.py"

DEFAULT_TEST = DATA / "kwdlc" / "test.knp"
DEFAULT_OUTPUT = REPO / "metrics" / "bench_ginza.json"

# Gold sentence: (sid, text, [(start_char, end_char)], [head bunsetsu index])
Gold = Tuple[Optional[str], str, List[Tuple[int, int]], List[int]]


# --------------------------------------------------------------------------
# Gold reader
# --------------------------------------------------------------------------

def _import_spacy_adf():
    """(read_knp, ud_to_bunsetsu_heads) from the checkout's spacy_adf, or None.

    spaCy is imported first, as in any run: catalogue reads the entry points
    once, when it is first imported. spacy-adf is usually not installed in
    GiNZA's environment, so spaCy sees none of its entry points (the project
    installs spacy-adf as a PEP 660 editable install, whose metadata lives in
    site-packages, not in the repository root; a stray ``spacy_adf.egg-info``
    in the root would expose them and make ``spacy.load`` import every
    spacy_adf component, so remove it before running this with another
    Python). A spacy_adf that does not import here (e.g. extensions built for
    another Python) is dropped again and the tiny reader is used."""
    import spacy  # noqa: F401  (catalogue's entry point snapshot comes first)

    try:
        from spacy_adf.lang.ja.ud_heads import ud_to_bunsetsu_heads
        from spacy_adf.corpora.knp import read_knp
    except Exception as err:  # e.g. extensions built for another Python
        for name in [m for m in sys.modules if m == "spacy_adf" or m.startswith("spacy_adf.")]:
            del sys.modules[name]
        print(f"spacy_adf not importable ({type(err).__name__}: {err}); using the tiny reader",
              file=sys.stderr)
        return None
    return read_knp, ud_to_bunsetsu_heads


_BUNSETSU_LINE = re.compile(r"\* (?:[0-9]+ )?(-?[0-9]+)[DPAI]")


def tiny_read_knp(path: Path, limit: int = 0):
    """Fallback KNP reader: yields (sid, surfaces, [(first morpheme, head)])."""
    sid, words, units = None, [], []
    n = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("# "):
                m = re.search(r"S-ID:(\S+)", line)
                sid = m.group(1) if m else None
            elif line == "EOS":
                yield sid, words, units
                n += 1
                if limit and n >= limit:
                    return
                sid, words, units = None, [], []
            elif line.startswith("* "):
                m = _BUNSETSU_LINE.match(line)
                if m is None:
                    raise ValueError(f"{path}: bad bunsetsu line {line!r}")
                units.append((len(words), int(m.group(1))))
            elif line.startswith("+ ") or not line:
                continue
            else:
                words.append(line.split(" ", 1)[0])


def read_gold(path: Path, limit: int, adf) -> List[Gold]:
    out: List[Gold] = []
    if adf is not None:
        read_knp = adf[0]
        for s in read_knp(path, limit=limit):
            offsets = [0]
            for m in s.morphemes:
                offsets.append(offsets[-1] + len(m.surface))
            spans = [(offsets[b.start], offsets[b.end]) for b in s.bunsetsu]
            out.append((s.sid, s.text, spans, [b.head for b in s.bunsetsu]))
        return out
    for sid, words, units in tiny_read_knp(path, limit):
        offsets = [0]
        for w in words:
            offsets.append(offsets[-1] + len(w))
        starts = [u[0] for u in units] + [len(words)]
        spans = [(offsets[starts[i]], offsets[starts[i + 1]]) for i in range(len(units))]
        out.append((sid, "".join(words), spans, [u[1] for u in units]))
    return out


def ud_to_bunsetsu_heads_from_file():
    """spacy_adf's `ud_to_bunsetsu_heads`, loaded from `UD_HEADS_FILE` without
    importing the spacy_adf package (whose extensions may be built for another
    Python): the module uses the standard library only."""
    spec = importlib.util.spec_from_file_location("spacy_adf_ud_heads", UD_HEADS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.ud_to_bunsetsu_heads


# --------------------------------------------------------------------------
# GiNZA bunsetsu
# --------------------------------------------------------------------------

def ginza_bunsetsu(doc, ginza, ud_to_heads) -> Dict:
    """GiNZA's bunsetsu of a Doc: char spans, raw and head-final heads."""
    spans = sorted({(s.start, s.end) for s in ginza.bunsetu_spans(doc)})
    tiles = bool(spans) and spans[0][0] == 0 and spans[-1][1] == len(doc) and all(
        a[1] == b[0] for a, b in zip(spans, spans[1:]))
    if not tiles:  # B/I labels, as GiNZA's CaboCha output does
        starts = [i for i, bi in enumerate(ginza.bunsetu_bi_labels(doc)) if bi == "B"]
        spans = list(zip(starts, starts[1:] + [len(doc)]))
    bunsetsu_of = [0] * len(doc)
    for b, (start, end) in enumerate(spans):
        for i in range(start, end):
            bunsetsu_of[i] = b
    # raw: GiNZA's CaboCha rule, rightmost token with an external head wins
    raw = [-1] * len(spans)
    for b, (start, end) in enumerate(spans):
        for t in doc[start:end]:
            hb = bunsetsu_of[t.head.i]
            if hb != b:
                raw[b] = hb
    word_heads = [0 if t.head.i == t.i else t.head.i + 1 for t in doc]
    head_final = ud_to_heads(word_heads, bunsetsu_of)
    char_spans = [(doc[s].idx, doc[e - 1].idx + len(doc[e - 1].text)) for s, e in spans]
    return {"spans": char_spans, "raw": raw, "head_final": head_final, "tiled": tiles,
            "n_sents": sum(1 for _ in doc.sents)}


# --------------------------------------------------------------------------
# Scoring
# --------------------------------------------------------------------------

def _prf(tp: int, n_pred: int, n_gold: int) -> Dict[str, float]:
    p = tp / n_pred if n_pred else 0.0
    r = tp / n_gold if n_gold else 0.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return {"p": p, "r": r, "f": f, "tp": tp, "pred": n_pred, "gold": n_gold}


def score(gold: List[Gold], pred: List[Dict], key: str) -> Dict:
    scored = strict = lenient = exact = 0
    both_ends = both_ends_correct = 0
    sent_correct = sent_exact = 0
    for (_, text, gspans, gheads), p in zip(gold, pred):
        pspans, pheads = p["spans"], p[key]
        by_end = {e: b for b, (_, e) in enumerate(pspans)}
        by_span = {sp: b for b, sp in enumerate(pspans)}
        # GiNZA bunsetsu containing character c
        containing = [0] * len(text)
        for b, (s, e) in enumerate(pspans):
            for c in range(s, e):
                containing[c] = b
        ok_sentence = True
        ok_exact = gspans == pspans
        for i, (gh, (_, gend)) in enumerate(zip(gheads, gspans)):
            if i == len(gspans) - 1:
                continue
            scored += 1
            hend = gspans[gh][1]
            pb = by_end.get(gend)
            ok = False
            if pb is not None and hend in by_end:
                both_ends += 1
                ph = pheads[pb]
                ok = ph >= 0 and pspans[ph][1] == hend
                both_ends_correct += ok
            strict += ok
            ok_sentence = ok_sentence and ok
            pi, phb = containing[gend - 1], containing[hend - 1]
            lenient += pi != phb and pheads[pi] == phb
            pe = by_span.get(gspans[i])
            ok = pe is not None and pheads[pe] >= 0 and pspans[pheads[pe]] == gspans[gh]
            exact += ok
            ok_exact = ok_exact and ok
        sent_correct += ok_sentence
        sent_exact += ok_exact
    return {
        "dependency_accuracy": strict / scored if scored else 0.0,
        "dependency_accuracy_lenient": lenient / scored if scored else 0.0,
        "sentence_accuracy": sent_correct / len(gold) if gold else 0.0,
        "attachment_accuracy_given_boundaries": both_ends_correct / both_ends if both_ends else 0.0,
        "dependency_accuracy_exact_spans": exact / scored if scored else 0.0,
        "sentence_accuracy_exact_spans": sent_exact / len(gold) if gold else 0.0,
        "scored_bunsetsu": scored,
        "correct": strict,
        "correct_lenient": lenient,
        "correct_exact_spans": exact,
        "scored_with_both_ends_reproduced": both_ends,
        "sentences": len(gold),
        "sentences_correct": sent_correct,
    }


def segmentation(gold: List[Gold], pred: List[Dict]) -> Dict:
    tp_b = n_pb = n_gb = tp_s = n_ps = n_gs = 0
    for (_, _, gspans, _), p in zip(gold, pred):
        gb = {e for _, e in gspans[:-1]}
        pb = {e for _, e in p["spans"][:-1]}
        tp_b += len(gb & pb)
        n_gb += len(gb)
        n_pb += len(pb)
        gs, ps = set(gspans), set(p["spans"])
        tp_s += len(gs & ps)
        n_gs += len(gs)
        n_ps += len(ps)
    return {"boundary": _prf(tp_b, n_pb, n_gb), "span": _prf(tp_s, n_ps, n_gs)}


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------

def main(argv=None) -> Dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--test", type=Path, default=DEFAULT_TEST)
    parser.add_argument("--limit", type=int, default=0, help="first N sentences (0: all)")
    parser.add_argument("--output", type=Path, default=DEFAULT_OUTPUT)
    parser.add_argument("--model", default="ja_ginza")
    parser.add_argument("--repeats", type=int, default=2, help="timed nlp.pipe passes (best kept)")
    parser.add_argument("--batch-size", type=int, default=None,
                        help="nlp.pipe batch size (default: the pipeline's nlp.batch_size)")
    parser.add_argument("--threads", type=int, default=1,
                        help="OMP/OpenBLAS/MKL threads if not set in the environment")
    args = parser.parse_args(argv)
    stray = REPO / EGG_INFO
    if stray.exists():  # see _import_spacy_adf: spacy.load would import every spacy_adf component
        raise SystemExit(
            f"benchmarks.ginza: {stray} exposes spacy-adf's entry points to this Python, so loading "
            "GiNZA would import every spacy_adf component and their dependencies (scipy, ...). "
            "It is left by setup.py commands (build_ext, egg_info) and by a plain pip install of "
            "the checkout; pip install -e . keeps its "
            "metadata in site-packages. Remove it and run again.")

    # one process on one core: keep BLAS / OpenMP single-threaded (set before numpy loads)
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, str(args.threads))
    import ginza
    import spacy

    info = machine_info()
    adf = _import_spacy_adf()
    ud_to_heads = adf[1] if adf is not None else ud_to_bunsetsu_heads_from_file()
    gold = read_gold(args.test, args.limit, adf)
    texts = [g[1] for g in gold]

    nlp = spacy.load(args.model)
    batch_size = args.batch_size or nlp.batch_size
    list(nlp.pipe(texts[:20], batch_size=batch_size))  # warm-up

    pipe_seconds, pipe_cpu_seconds = [], []
    docs = None
    for _ in range(max(1, args.repeats)):
        start, cpu = time.perf_counter(), time.process_time()
        docs = list(nlp.pipe(texts, batch_size=batch_size))
        pipe_seconds.append(time.perf_counter() - start)
        pipe_cpu_seconds.append(time.process_time() - cpu)
    assert all(d.text == t for d, t in zip(docs, texts)), "GiNZA changed the text"

    # component by component
    components, components_cpu = {}, {}
    start, cpu = time.perf_counter(), time.process_time()
    cdocs = [nlp.make_doc(t) for t in texts]
    components["tokenizer"] = time.perf_counter() - start
    components_cpu["tokenizer"] = time.process_time() - cpu
    for name, proc in nlp.pipeline:
        start, cpu = time.perf_counter(), time.process_time()
        if hasattr(proc, "pipe"):
            cdocs = list(proc.pipe(cdocs, batch_size=batch_size))
        else:  # plain callables (compound_splitter, bunsetu_recognizer)
            cdocs = [proc(d) for d in cdocs]
        components[name] = time.perf_counter() - start
        components_cpu[name] = time.process_time() - cpu
    same = sum(1 for a, b in zip(docs, cdocs)
               if [t.head.i for t in a] == [t.head.i for t in b])

    info["load_average_at_end"] = list(os.getloadavg())
    pred = [ginza_bunsetsu(d, ginza, ud_to_heads) for d in docs]
    n = len(texts)
    best = min(pipe_seconds)
    parse_only = components["tok2vec"] + components["parser"] + components["bunsetu_recognizer"]
    result = {
        "machine": info,
        "versions": {name: version_or_none(name) for name in
                     ("ginza", "ja-ginza", "spacy", "thinc", "sudachipy", "sudachidict-core")},
        "model": {"name": args.model, "meta_version": nlp.meta.get("version"),
                  "pipeline": nlp.pipe_names,
                  "split_mode": getattr(nlp.tokenizer, "split_mode", None)},
        "settings": {"test": str(args.test), "limit": args.limit, "repeats": args.repeats,
                     "batch_size": batch_size, "processes": 1,
                     "threads": {v: os.environ.get(v) for v in
                                 ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
                     "gold_reader": "spacy_adf.corpora.knp.read_knp" if adf else "tiny_read_knp"},
        "data": {"sentences": n, "characters": sum(map(len, texts)),
                 "gold_bunsetsu": sum(len(g[2]) for g in gold),
                 "ginza_bunsetsu": sum(len(p["spans"]) for p in pred),
                 "ginza_tokens": sum(len(d) for d in docs),
                 "texts_split_into_several_ginza_sentences": sum(p["n_sents"] > 1 for p in pred),
                 "docs_where_bunsetu_spans_did_not_tile": sum(not p["tiled"] for p in pred)},
        "accuracy": {"head_final": score(gold, pred, "head_final"),
                     "raw": score(gold, pred, "raw")},
        "segmentation": segmentation(gold, pred),
        "speed": {
            "pipe_seconds": pipe_seconds,
            "pipe_sentences_per_second": n / best,
            "pipe_characters_per_second": sum(map(len, texts)) / best,
            "pipe_cpu_seconds": pipe_cpu_seconds,
            "pipe_sentences_per_cpu_second": n / min(pipe_cpu_seconds),
            "component_seconds": components,
            "component_cpu_seconds": components_cpu,
            "parser_sentences_per_second": n / components["parser"],
            "tok2vec_parser_bunsetu_seconds": parse_only,
            "tok2vec_parser_bunsetu_sentences_per_second": n / parse_only,
            "tokenizer_sentences_per_second": n / components["tokenizer"],
            "component_pass_same_heads_as_pipe": same,
        },
    }
    write_json(args.output, result)

    v = result["versions"]
    print(f"GiNZA {v['ginza']} / ja_ginza {v['ja-ginza']} / spaCy {v['spacy']} / "
          f"SudachiPy {v['sudachipy']} on {args.test} ({n} sentences, "
          f"{result['data']['gold_bunsetsu']} gold bunsetsu, gold reader "
          f"{result['settings']['gold_reader']})")
    for key in ("head_final", "raw"):
        a = result["accuracy"][key]
        print(f"  {key:10s} dep acc {a['dependency_accuracy']:.4f} (lenient "
              f"{a['dependency_accuracy_lenient']:.4f}; given boundaries "
              f"{a['attachment_accuracy_given_boundaries']:.4f}; exact spans "
              f"{a['dependency_accuracy_exact_spans']:.4f}) sentence acc "
              f"{a['sentence_accuracy']:.4f} (exact spans {a['sentence_accuracy_exact_spans']:.4f})"
              f"  [{a['scored_bunsetsu']} scored]")
    s = result["segmentation"]
    print(f"  bunsetsu boundary P/R/F {s['boundary']['p']:.4f}/{s['boundary']['r']:.4f}/"
          f"{s['boundary']['f']:.4f}  span F {s['span']['f']:.4f}")
    sp = result["speed"]
    print(f"  speed: nlp.pipe {sp['pipe_sentences_per_second']:.1f} sent/s "
          f"({sp['pipe_sentences_per_cpu_second']:.1f} per CPU second); parser alone "
          f"{sp['parser_sentences_per_second']:.1f} sent/s; tok2vec+parser+bunsetu "
          f"{sp['tok2vec_parser_bunsetu_sentences_per_second']:.1f} sent/s; "
          f"components (s): " + ", ".join(f"{k} {t:.2f}" for k, t in components.items()))
    print(f"  wrote {args.output}")
    return result


if __name__ == "__main__":
    main()
