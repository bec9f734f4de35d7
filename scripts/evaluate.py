"""Evaluate a trained pipeline on a CoNLL column file and write the scores.

    python scripts/evaluate.py MODEL_DIR CONLL_FILE --output metrics/x.json
        [--columns words,tag,iob] [--iob-target spans:chunks] [--keep-labels NP]

Gold POS tags (the `tag` column) are input features, as in CoNLL-2000.
"""
import argparse
import json
import time
from pathlib import Path

import spacy
from spacy.training import Example

from spacy_adf.corpora.conll import conll_to_docs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--output", required=True)
    parser.add_argument("--columns", default="words,tag,iob")
    parser.add_argument("--iob-target", default="spans:chunks")
    parser.add_argument("--keep-labels", default=None)
    args = parser.parse_args(argv)
    nlp = spacy.load(args.model)
    keep = args.keep_labels.split(",") if args.keep_labels else None
    pairs = list(conll_to_docs(nlp.vocab, args.data, columns=args.columns.split(","),
                               iob_target=args.iob_target, keep_labels=keep))
    start = time.perf_counter()
    docs = list(nlp.pipe([p for p, _ in pairs], batch_size=256))
    seconds = time.perf_counter() - start
    examples = [Example(doc, ref) for doc, (_, ref) in zip(docs, pairs)]
    scores = {}
    for name in nlp.pipe_names:
        scores.update(nlp.get_pipe(name).score(examples))
    n_tokens = sum(len(d) for d in docs)
    result = {
        "model": args.model,
        "data": args.data,
        "sentences": len(docs),
        "tokens": n_tokens,
        "tokens_per_second": n_tokens / seconds,
        "scores": {k: v for k, v in scores.items() if isinstance(v, (int, float))},
    }
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(result, indent=2))
    for k, v in result["scores"].items():
        print(f"{k}: {100 * v:.2f}")
    print(f"{n_tokens / seconds:,.0f} tokens/s")


if __name__ == "__main__":
    main()
