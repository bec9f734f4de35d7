"""A self-training corpus for a segmenter (see spacy_adf.training.self_training):
the gold training lines, then unlabeled lines of the same domain segmented by
a segmenter trained on the gold lines.

    python -m scripts.self_train_corpus MODEL UNLABELED --gold GOLD --output OUT
        [--exclude DEV ...] [--report OUT.json]

MODEL: a trained segmenter pipeline (or its fast tokenizer form). A line of
UNLABELED whose text is a line of an --exclude file (spaces ignored) is left
out, so the dev set is never trained on.
"""
import argparse
import json
from pathlib import Path

import spacy

from spacy_adf.training.self_training import write_self_training_corpus


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("model", type=Path)
    parser.add_argument("unlabeled", type=Path)
    parser.add_argument("--gold", type=Path, required=True, help="the gold training file (one sentence a line, words separated by spaces)")
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--exclude", type=Path, action="append", default=[],
                        help="a file whose lines must not be trained on (the dev set); repeatable")
    parser.add_argument("--report", type=Path, default=None, help="write the counts as JSON here")
    parser.add_argument("--batch-size", type=int, default=256)
    args = parser.parse_args(argv)
    if not args.model.exists():
        parser.error(f"model not found: {args.model} (train the gold segmenter first)")
    nlp = spacy.load(args.model)
    report = write_self_training_corpus(nlp, args.unlabeled, args.gold, args.output, exclude=args.exclude,
                                        batch_size=args.batch_size)
    if args.report is not None:
        args.report.parent.mkdir(parents=True, exist_ok=True)
        data = {"model": str(args.model), "unlabeled": str(args.unlabeled), "gold": str(args.gold),
                "exclude": [str(p) for p in args.exclude], **report.to_dict()}
        args.report.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
