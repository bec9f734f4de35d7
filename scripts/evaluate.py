"""Evaluate a trained pipeline on a CoNLL column file and write the scores.

    python scripts/evaluate.py MODEL_DIR CONLL_FILE --output metrics/x.json
        [--columns words,tag,iob] [--iob-target spans:chunks] [--keep-labels NP]

Gold POS tags (the `tag` column) are input features, as in CoNLL-2000.
"""
import argparse
import json
import time
from pathlib import Path
from typing import Dict, Tuple

import spacy
from spacy.training import Example

from spacy_adf.corpora.conll import conll_to_docs


def file_parser(description: str, columns: str) -> argparse.ArgumentParser:
    """MODEL DATA --output --columns: what every CoNLL-file evaluation takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--output", required=True)
    parser.add_argument("--columns", default=columns)
    return parser


def predict_file(args, **reader_kwargs) -> Tuple:
    """Load args.model and run it on args.data (its own tokens, read by
    conll_to_docs with `reader_kwargs`): (nlp, examples, seconds, n_tokens)."""
    nlp = spacy.load(args.model)
    pairs = list(conll_to_docs(nlp.vocab, args.data, columns=args.columns.split(","),
                               **reader_kwargs))
    start = time.perf_counter()
    docs = list(nlp.pipe([p for p, _ in pairs], batch_size=256))
    seconds = time.perf_counter() - start
    examples = [Example(doc, ref) for doc, (_, ref) in zip(docs, pairs)]
    return nlp, examples, seconds, sum(len(d) for d in docs)


def write_result(path: str, result: Dict) -> None:
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(result, indent=2))


def main(argv=None):
    parser = file_parser(__doc__, "words,tag,iob")
    parser.add_argument("--iob-target", default="spans:chunks")
    parser.add_argument("--keep-labels", default=None)
    args = parser.parse_args(argv)
    keep = args.keep_labels.split(",") if args.keep_labels else None
    nlp, examples, seconds, n_tokens = predict_file(args, iob_target=args.iob_target,
                                                    keep_labels=keep)
    scores = {}
    for name in nlp.pipe_names:
        scores.update(nlp.get_pipe(name).score(examples))
    result = {
        "model": args.model,
        "data": args.data,
        "sentences": len(examples),
        "tokens": n_tokens,
        "tokens_per_second": n_tokens / seconds,
        "scores": {k: v for k, v in scores.items() if isinstance(v, (int, float))},
    }
    write_result(args.output, result)
    for k, v in result["scores"].items():
        print(f"{k}: {100 * v:.2f}")
    print(f"{n_tokens / seconds:,.0f} tokens/s")


if __name__ == "__main__":
    main()
