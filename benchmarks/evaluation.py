"""What the evaluation scripts share (scripts/evaluate.py, evaluate_bioner.py):
the MODEL DATA --output --columns command line and the prediction run over a
CoNLL column file that keeps its own tokens."""
import argparse
import time
from typing import Tuple

import spacy
from spacy.training import Example

from spacy_adf.corpora.conll import conll_to_docs


def file_parser(description: str, columns: str) -> argparse.ArgumentParser:
    """MODEL DATA --output --columns: what every CoNLL-file evaluation takes."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--output", default=None, help="JSON file for the scores (default: print only)")
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
