"""Scores and speeds of the raw-text pipelines (`spacy project run pipelines`
builds them; `spacy project run bench-raw-text` runs this).

Every score compares character offsets, so the pipeline's own tokenization
and segmentation errors count:

- English (CoNLL-2000 test): base-NP and all-phrase F1 with gold POS (the
  chunkers alone on the gold words and tags), with predicted POS (the whole
  pipeline on the gold words) and from raw text (the sentence's words joined
  by spaces, tokenized by the pipeline's tokenizer: spaCy's English one with
  the Penn Treebank's tokens where they differ, spacy_adf.tokenizers.english);
  POS accuracy.
- Japanese (KWDLC test, raw sentence text): word segmentation F, POS
  (SrcPos + SrcSubPos) accuracy on the words segmented right, bunsetsu
  boundary F and dependency accuracy aligned on character offsets exactly as
  `benchmarks.ginza` scores GiNZA (same functions), with GiNZA's figures on
  the same texts from a GiNZA venv run in the same benchmark (``--ginza-python``)
  or, failing that, from metrics/bench_ginza.json (marked so).
- Chinese (NLPCC-2016 Weibo dev, raw text): word F.
- Biomedical (JNLPBA test): entity F1 with predicted POS on the gold words,
  and from raw text (words joined by spaces, BioTokenizer).

Speed: characters per second of ``nlp.pipe`` over the raw texts, one process,
best of ``--repeats`` passes.

    python -m benchmarks.raw_text [--data ../shared/data] [--ginza-python ../ginza-venv/bin/python]
"""
import argparse
import json
import subprocess
import time
from pathlib import Path
from typing import Dict, Iterable, List, Sequence, Set, Tuple

import spacy

from benchmarks.ginza import read_gold, score as score_bunsetsu_deps, segmentation as bunsetsu_segmentation
from benchmarks.harness import DATA, REPO, fmt, machine_info, publish
from spacy_adf.corpora.conll import conll_to_docs
from spacy_adf.corpora.knp import read_knp
from spacy_adf.corpora.segmented import read_segmented
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, bunsetsu_heads

CharSpan = Tuple[int, int, str]


def prf(pred: Set, gold: Set) -> Dict[str, float]:
    tp = len(pred & gold)
    p = tp / len(pred) if pred else 0.0
    r = tp / len(gold) if gold else 0.0
    return {"p": p, "r": r, "f": 2 * p * r / (p + r) if p + r else 0.0, "pred": len(pred), "gold": len(gold)}


def char_spans(spans) -> Set[CharSpan]:
    return {(s.start_char, s.end_char, s.label_) for s in spans}


def annotate_words(nlp, ref):
    """A Doc with `ref`'s words and spaces only, through every component."""
    doc = spacy.tokens.Doc(nlp.vocab, words=[t.text for t in ref], spaces=[bool(t.whitespace_) for t in ref])
    for _, proc in nlp.pipeline:
        doc = proc(doc)
    return doc


def speed(nlp, texts: Sequence[str], repeats: int) -> Dict[str, float]:
    """Characters and tokens per second of nlp.pipe over `texts`, best pass."""
    best, n_tokens = float("inf"), 0
    for _ in range(repeats):
        start = time.perf_counter()
        n_tokens = sum(len(doc) for doc in nlp.pipe(texts))
        best = min(best, time.perf_counter() - start)
    n_chars = sum(len(t) for t in texts)
    return {"seconds": best, "chars": n_chars, "chars_per_s": n_chars / best, "tokens_per_s": n_tokens / best}


# Penn Treebank tokens that stand for other characters in running text
PTB_RAW = {"``": '"', "''": '"', "-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}"}


def _joined(words: Iterable[str]) -> Tuple[str, List[int], List[int]]:
    """The words joined by spaces (PTB quote and bracket tokens as the
    characters they stand for), and each word's start and end offsets."""
    starts, ends, text = [], [], ""
    for w in words:
        w = PTB_RAW.get(w, w)
        if text:
            text += " "
        starts.append(len(text))
        text += w
        ends.append(len(text))
    return text, starts, ends


# ------------------------------------------------------------------ English


def english(nlp, test: Path, repeats: int) -> Dict:
    pairs = list(conll_to_docs(nlp.vocab, test, columns=["words", "tag", "iob"],
                               iob_target="spans:gold", input_attrs=["tag"]))
    chunkers = {"chunks": "np", "phrases": "all"}
    gold = {k: set() for k in chunkers}
    raw_gold = {k: set() for k in chunkers}  # offsets in the raw text
    texts, results = [], {}
    for n, (_, ref) in enumerate(pairs):
        text, starts, ends = _joined(t.text for t in ref)
        texts.append(text)
        for k in chunkers:
            want = [s for s in ref.spans["gold"] if k == "phrases" or s.label_ == "NP"]
            gold[k] |= {(n, *c) for c in char_spans(want)}
            raw_gold[k] |= {(n, starts[s.start], ends[s.end - 1], s.label_) for s in want}
    tagger = nlp.get_pipe("tagger")
    pred = {mode: {k: set() for k in chunkers} for mode in ("gold_pos", "predicted_pos", "raw_text")}
    pos_right = n_tokens = 0
    for n, (with_tags, ref) in enumerate(pairs):
        for name, proc in nlp.pipeline:  # gold POS: the chunkers alone
            if name != "tagger":
                proc(with_tags)
        words_only = annotate_words(nlp, ref)
        pos_right += sum(a.tag_ == b.tag_ for a, b in zip(words_only, ref))
        n_tokens += len(ref)
        for k in chunkers:
            pred["gold_pos"][k] |= {(n, *c) for c in char_spans(with_tags.spans.get(k, []))}
            pred["predicted_pos"][k] |= {(n, *c) for c in char_spans(words_only.spans.get(k, []))}
    for n, doc in enumerate(nlp.pipe(texts)):
        for k in chunkers:
            pred["raw_text"][k] |= {(n, *c) for c in char_spans(doc.spans.get(k, []))}
    for mode, by_key in pred.items():
        want = raw_gold if mode == "raw_text" else gold
        results[mode] = {chunkers[k]: prf(by_key[k], want[k]) for k in chunkers}
    results["pos_accuracy"] = pos_right / n_tokens
    results["tagger_labels"] = len(tagger.labels)
    results["speed"] = speed(nlp, texts, repeats)
    results["sentences"] = len(pairs)
    return results


# ------------------------------------------------------------------ Japanese


def _word_spans(words: Sequence[str]) -> List[Tuple[int, int]]:
    out, pos = [], 0
    for w in words:
        out.append((pos, pos + len(w)))
        pos += len(w)
    return out


def japanese(nlp, test: Path, repeats: int) -> Dict:
    sentences = list(read_knp(test))
    gold = read_gold(test, 0, (read_knp, None))
    texts = [s.text for s in sentences]
    docs = list(nlp.pipe(texts))
    pred, word_pred, word_gold, pos_right, pos_total = [], set(), set(), 0, 0
    for n, (s, doc) in enumerate(zip(sentences, docs)):
        gwords = {sp: m for sp, m in zip(_word_spans(s.words), s.morphemes)}
        word_gold |= {(n, *sp) for sp in gwords}
        for t in doc:
            sp = (t.idx, t.idx + len(t))
            word_pred.add((n, *sp))
            m = gwords.get(sp)
            if m is not None:
                pos_total += 1
                sub = t.morph.get("SrcSubPos")
                pos_right += (t.morph.get("SrcPos") == [m.pos]) and (sub == ([] if m.subpos == "*" else [m.subpos]))
        spans = list(doc.spans[BUNSETSU_KEY])
        pred.append({"spans": [(sp.start_char, sp.end_char) for sp in spans],
                     "head_final": bunsetsu_heads(doc) if spans else []})
    return {
        "sentences": len(texts),
        "words": prf(word_pred, word_gold),
        "pos_accuracy_on_right_words": pos_right / pos_total if pos_total else 0.0,
        "bunsetsu": bunsetsu_segmentation(gold, pred),
        "dependency": score_bunsetsu_deps(gold, pred, "head_final"),
        "speed": speed(nlp, texts, repeats),
    }


def ginza_figures(python: str, test: Path, out: Path) -> Dict:
    """GiNZA on the same texts, run by benchmarks.ginza in GiNZA's venv."""
    if python:
        subprocess.run([python, "-m", "benchmarks.ginza", "--test", str(test), "--output", str(out)],
                       check=True, cwd=REPO)
        data, source = json.loads(out.read_text()), "this run"
    else:
        data, source = json.loads((REPO / "metrics" / "bench_ginza.json").read_text()), "metrics/bench_ginza.json (earlier run)"
    return {"source": source, "head_final": data["accuracy"]["head_final"],
            "boundary_f": data["segmentation"]["boundary"]["f"],
            "chars_per_s": data["speed"]["pipe_characters_per_second"],
            "versions": data.get("versions")}


# ------------------------------------------------------------------ Chinese, biomedical


def chinese(nlp, dev: Path, repeats: int) -> Dict:
    gold_words = [words for words in read_segmented(dev) if words]
    texts = ["".join(w) for w in gold_words]
    pred, gold = set(), set()
    for n, (doc, words) in enumerate(zip(nlp.pipe(texts), gold_words)):
        pred |= {(n, t.idx, t.idx + len(t)) for t in doc}
        gold |= {(n, *sp) for sp in _word_spans(words)}
    return {"sentences": len(texts), "words": prf(pred, gold), "speed": speed(nlp, texts, repeats)}


def biomedical(nlp, test: Path, repeats: int) -> Dict:
    pairs = list(conll_to_docs(nlp.vocab, test, columns=["words", "iob"], iob_target="ents",
                               input_attrs=(), sep="\t"))
    gold, raw_gold, on_words, raw, texts = set(), set(), set(), set(), []
    for n, (_, ref) in enumerate(pairs):
        gold |= {(n, *c) for c in char_spans(ref.ents)}
        text, starts, ends = _joined(t.text for t in ref)
        raw_gold |= {(n, starts[e.start], ends[e.end - 1], e.label_) for e in ref.ents}
        words_only = annotate_words(nlp, ref)
        on_words |= {(n, *c) for c in char_spans(words_only.ents)}
        texts.append(text)
    for n, doc in enumerate(nlp.pipe(texts)):
        raw |= {(n, *c) for c in char_spans(doc.ents)}
    return {"sentences": len(pairs), "predicted_pos_gold_words": prf(on_words, gold),
            "raw_text": prf(raw, raw_gold), "speed": speed(nlp, texts, repeats)}


# ------------------------------------------------------------------ report


def markdown(r: Dict) -> str:
    pct = lambda x: fmt(100 * x)  # noqa: E731
    lines = ["## Raw-text pipelines", "",
             f"`{r['command']}`; one process; {r['machine'].get('cpu', '')}.", ""]
    if "en" in r:
        e = r["en"]
        lines += ["English (CoNLL-2000 test, 2,012 sentences): F1 by character offsets. Raw text: the "
                  "words joined by spaces, PTB quote tokens as `\"`; spaCy's English tokenizer with "
                  "the treebank's tokens where they differ (spacy_adf.tokenizers.english).", "",
                  "| input | base NP | all phrases |", "|---|---|---|"]
        for mode, name in (("gold_pos", "gold words, gold POS"), ("predicted_pos", "gold words, predicted POS"),
                           ("raw_text", "raw text (tokenizer, predicted POS)")):
            lines.append(f"| {name} | {pct(e[mode]['np']['f'])} | {pct(e[mode]['all']['f'])} |")
        lines += ["", f"POS accuracy {pct(e['pos_accuracy'])}; whole pipeline "
                  f"{e['speed']['chars_per_s']:,.0f} chars/s ({e['speed']['tokens_per_s']:,.0f} tokens/s).", ""]
    if "ja" in r:
        j, g = r["ja"], r.get("ginza", {})
        gd = g.get("head_final", {})
        w = r.get("ja_wikipedia")
        split = r.get("ja_split", "test")
        lines += [f"Japanese (KWDLC {split}, raw sentence text), scored by `benchmarks.ginza`'s functions:", "",
                  "| | spacy-adf pipeline | GiNZA |", "|---|---|---|",
                  f"| dependency accuracy (strict, char offsets) | {pct(j['dependency']['dependency_accuracy'])} | "
                  f"{pct(gd['dependency_accuracy']) if 'dependency_accuracy' in gd else 'n/a'} |",
                  f"| sentence accuracy | {pct(j['dependency']['sentence_accuracy'])} | "
                  f"{pct(gd['sentence_accuracy']) if 'sentence_accuracy' in gd else 'n/a'} |",
                  f"| bunsetsu boundary F | {pct(j['bunsetsu']['boundary']['f'])} | "
                  f"{pct(g['boundary_f']) if 'boundary_f' in g else 'n/a'} |",
                  f"| words F | {pct(j['words']['f'])} | (UniDic units) |",
                  f"| chars/s | {j['speed']['chars_per_s']:,.0f} | "
                  f"{fmt(g.get('chars_per_s'), ',.0f')} |",
                  "", f"GiNZA figures: {g.get('source', 'not run')}. POS accuracy on the words "
                  f"segmented right: {pct(j['pos_accuracy_on_right_words'])}.", ""]
        if w:
            lines += [f"KU Wikipedia {split} ({w['sentences']:,} sentences), the same pipeline: dependency "
                      f"accuracy {pct(w['dependency']['dependency_accuracy'])}, sentence accuracy "
                      f"{pct(w['dependency']['sentence_accuracy'])}, bunsetsu boundary F "
                      f"{pct(w['bunsetsu']['boundary']['f'])}, words F {pct(w['words']['f'])}.", ""]
    if "zh" in r:
        z = r["zh"]
        lines += [f"Chinese (Weibo dev, raw text): word F {pct(z['words']['f'])}, "
                  f"{z['speed']['chars_per_s']:,.0f} chars/s.", ""]
    if "bio" in r:
        b = r["bio"]
        lines += [f"Biomedical (JNLPBA test): entity F1 {pct(b['predicted_pos_gold_words']['f'])} on the gold "
                  f"words with predicted POS, {pct(b['raw_text']['f'])} from raw text; "
                  f"{b['speed']['chars_per_s']:,.0f} chars/s.", ""]
    return "\n".join(lines)


def main(argv=None) -> Dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=DATA)
    p.add_argument("--pipelines", type=Path, default=REPO / "training")
    p.add_argument("--only", nargs="*", default=["en", "ja", "zh", "bio"])
    p.add_argument("--ginza-python", default="", help="a Python with ginza and ja_ginza installed")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--ja-split", default="test", choices=["dev", "test"],
                   help="the KWDLC and KU Wikipedia split for Japanese (tune on dev, report test once)")
    p.add_argument("--output", type=Path, default=REPO / "metrics" / "bench_raw_text.json")
    p.add_argument("--markdown", type=Path, default=REPO / "docs" / "benchmarks.md")
    args = p.parse_args(argv)
    r: Dict = {"command": "python -m benchmarks.raw_text", "machine": machine_info()}
    jobs = {
        "en": lambda nlp: english(nlp, args.data / "conll2000" / "test.txt", args.repeats),
        "ja": lambda nlp: japanese(nlp, args.data / "kwdlc" / f"{args.ja_split}.knp", args.repeats),
        "zh": lambda nlp: chinese(nlp, args.data / "nlpcc2016_weibo" / "nlpcc2016-wordseg-dev.dat", args.repeats),
        "bio": lambda nlp: biomedical(nlp, args.data / "jnlpba" / "Genia4EReval1.iob2", args.repeats),
    }
    for key in args.only:
        nlp = spacy.load(args.pipelines / f"pipeline_{key}")
        r[key] = jobs[key](nlp)
        r[key]["pipeline"] = nlp.pipe_names
        print(key, json.dumps({k: v for k, v in r[key].items() if k != "pipeline"}, default=str)[:600], flush=True)
        if key == "ja":  # the second Japanese corpus, through the same pipeline
            r["ja_wikipedia"] = japanese(nlp, args.data / "ku_wikipedia_annotated" / f"{args.ja_split}.knp",
                                         args.repeats)
            r["ja_split"] = args.ja_split
    if "ja" in args.only:
        r["ginza"] = ginza_figures(args.ginza_python, args.data / "kwdlc" / "test.knp",
                                   REPO / "metrics" / "bench_ginza_raw_text.json")
    publish(r, args.output, args.markdown, "raw-text", markdown(r))
    return r


if __name__ == "__main__":
    main()
