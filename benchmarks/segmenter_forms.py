"""adf_segmenter's component form against its tokenizer form on long texts:
the component builds the word Doc once, so its time grows linearly with the
text like the tokenizer's (it used to merge words one by one with spaCy's
retokenizer, quadratic in the text).

    python -m benchmarks.segmenter_forms --data ../shared/data

Trains a small segmenter (the first --train sentences of the Weibo training
file, one pass), then segments texts of 40k, 100k and 200k characters made of
Weibo dev sentences, both forms on the same text, best of --repeats; checks
that both forms give the same tokens and keep the text. Writes
metrics/bench_segmenter_forms.json and its section of docs/benchmarks.md.
"""
import argparse
import time
from pathlib import Path

import spacy

from spacy_adf.corpora.segmented import read_segmented
from spacy_adf.optimizers.adf import ADF
from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer

from .harness import REPO, fmt, machine_info, write_json, write_section

NAME = "bench_segmenter_forms"
SIZES = (40_000, 100_000, 200_000)


def train_segmenter(sentences):
    from spacy.tokens import Doc
    from spacy.training import Example

    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    seg = nlp.add_pipe("adf_segmenter")
    examples = []
    for words in sentences:
        ref = Doc(nlp.vocab, words=words, spaces=[False] * len(words))
        examples.append(Example(nlp.make_doc(ref.text), ref))
    nlp.initialize(lambda: examples)
    sgd = ADF(0.1, sigma=5.0)
    for i in range(0, len(examples), 64):
        nlp.update(examples[i:i + 64], sgd=sgd)
    return nlp, seg


def best_time(fn, repeats):
    best, out = float("inf"), None
    for _ in range(repeats):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data", type=Path, default=REPO.parent / "shared" / "data")
    p.add_argument("--train", type=int, default=3000)
    p.add_argument("--model", type=Path, default=None,
                   help="a trained adf_segmenter pipeline to run instead of training a small one "
                        "(e.g. training/seg_weibo/model-last)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--sizes", default=",".join(map(str, SIZES)))
    p.add_argument("--lines", type=int, default=100_000,
                   help="Weibo training lines run as one Doc each (nlp.pipe against the tokenizer's pipe)")
    p.add_argument("--out-json", type=Path, default=REPO / "metrics" / f"{NAME}.json")
    p.add_argument("--out-md", type=Path, default=REPO / "docs" / "benchmarks.md")
    args = p.parse_args(argv)
    weibo = args.data / "nlpcc2016_weibo"
    train = [words for words in read_segmented(weibo / "nlpcc2016-word-seg-train.dat")][: args.train]
    dev_text = "".join("".join(words) for words in read_segmented(weibo / "nlpcc2016-wordseg-dev.dat"))
    if args.model is not None:
        import spacy

        nlp = spacy.load(args.model)
        seg = nlp.get_pipe("adf_segmenter")
        train = []
    else:
        nlp, seg = train_segmenter(train)
    fast = SegmenterTokenizer(nlp.vocab).from_segmenter(seg)
    rows = []
    for size in [int(s) for s in args.sizes.split(",")]:
        text = (dev_text * (size // max(len(dev_text), 1) + 1))[:size]
        t_comp, comp = best_time(lambda: nlp(text), args.repeats)
        t_tok, tok = best_time(lambda: fast(text), args.repeats)
        same = [t.text for t in comp] == [t.text for t in tok] and comp.text == text == tok.text
        rows.append({"characters": size, "component_s": t_comp, "tokenizer_s": t_tok,
                     "ratio": t_comp / t_tok, "identical": same, "words": len(tok)})
        print(f"[{NAME}] {size:,} chars: component {t_comp:.3f} s, tokenizer {t_tok:.3f} s, "
              f"ratio {t_comp / t_tok:.2f}, identical {same}")
    lines_row = None
    if args.lines:
        texts = ["".join(words) for words in read_segmented(weibo / "nlpcc2016-word-seg-train.dat")][: args.lines]
        n_chars = sum(len(t) for t in texts)
        # timed: the Docs made; compared after: their tokens
        t_comp, _ = best_time(lambda: [len(d) for d in nlp.pipe(texts, batch_size=1000)], args.repeats)
        t_tok, _ = best_time(lambda: [len(d) for d in fast.pipe(texts)], args.repeats)
        comp = [[t.text for t in d] for d in nlp.pipe(texts, batch_size=1000)]
        tok = [[t.text for t in d] for d in fast.pipe(texts)]
        lines_row = {"lines": len(texts), "characters": n_chars, "component_chars_per_s": n_chars / t_comp,
                     "tokenizer_chars_per_s": n_chars / t_tok, "ratio": t_tok / t_comp, "identical": comp == tok}
        print(f"[{NAME}] {len(texts):,} lines: component {n_chars / t_comp:,.0f} chars/s, tokenizer "
              f"{n_chars / t_tok:,.0f} chars/s, component / tokenizer speed {t_tok / t_comp:.2f}, "
              f"identical {comp == tok}")
    result = {"machine": machine_info(), "model": str(args.model) if args.model else None,
              "train_sentences": len(train), "repeats": args.repeats,
              "rows": rows, "lines": lines_row}
    write_json(args.out_json, result)
    lines = [
        "## adf_segmenter: component form vs tokenizer form on long texts", "",
        f"`python -m benchmarks.segmenter_forms`; "
        + (f"the segmenter of {args.model}" if args.model else
           f"a segmenter trained for one pass on the first {len(train):,} Weibo training sentences")
        + f"; texts made of Weibo dev sentences; best of "
        f"{args.repeats}. The component form builds the word Doc once (it used to merge with "
        "spaCy's retokenizer: 40k characters 4.1 s, 100k 29 s, 200k 166 s).", "",
        "| characters | component s | tokenizer s | component / tokenizer | identical tokens and text |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['characters']:,} | {fmt(r['component_s'], '.3f')} | {fmt(r['tokenizer_s'], '.3f')} | "
                     f"{fmt(r['ratio'])} | {'yes' if r['identical'] else 'NO'} |")
    if lines_row:
        r = lines_row
        lines += ["", f"Short texts: {r['lines']:,} Weibo training lines, one Doc each: component "
                  f"{r['component_chars_per_s']:,.0f} chars/s, tokenizer {r['tokenizer_chars_per_s']:,.0f} chars/s "
                  f"(the component at {r['ratio']:.2f}x the tokenizer's speed; identical tokens: "
                  f"{'yes' if r['identical'] else 'NO'})."]
    write_section(args.out_md, NAME, "\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
