"""python -m spacy_adf.distributed annotate|train ...

  annotate MODEL INPUT OUTPUT --workers N [--address ADDR] [--shard-size S]
           [--format spacy|jsonl] [--text-field text] [--batch-size B]
  train CONFIG --output DIR --workers N [--shards S] [--address ADDR]
        [--eval-every E] [--paths.train ...] (any spacy train config override)
"""
import argparse
import json
import sys

from spacy.cli._util import parse_config_overrides

from .annotate import annotate
from .train import train


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spacy_adf.distributed", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("annotate", help="annotate a large corpus with a pipeline on Ray workers")
    a.add_argument("model", help="pipeline directory or installed package")
    a.add_argument("input", help="text file (a document a line), JSONL, DocBin (.spacy), folder or glob")
    a.add_argument("output", help="folder for the shards and manifest.json")
    a.add_argument("--shard-size", type=int, default=10_000, help="input lines (Docs) per shard")
    a.add_argument("--format", choices=["spacy", "jsonl"], default="spacy", help="shard file format")
    a.add_argument("--text-field", default="text", help="the text field of JSONL input")
    a.add_argument("--batch-size", type=int, default=256, help="nlp.pipe batch size")
    a.add_argument("--no-progress", action="store_true")
    t = sub.add_parser("train", help="iterative parameter mixing with a spacy train config")
    t.add_argument("config")
    t.add_argument("--output", "-o", default=None, help="output directory (model-last, model-best)")
    t.add_argument("--shards", type=int, default=None, help="shards (actors) per epoch; default: --workers")
    t.add_argument("--eval-every", type=int, default=1,
                   help="evaluate on dev (and write model-best if better) every E epochs and after the last")
    for p in (a, t):
        p.add_argument("--workers", "-w", type=int, default=2, help="CPUs of the embedded Ray")
        p.add_argument("--address", default=None, help="join this Ray cluster instead ('auto': the local one)")
    args, extra = parser.parse_known_args(argv)
    try:
        if args.command == "annotate":
            if extra:
                parser.error(f"unknown arguments: {extra}")
            summary = annotate(args.model, args.input, args.output, workers=args.workers, address=args.address,
                               shard_size=args.shard_size, fmt=args.format, text_field=args.text_field,
                               batch_size=args.batch_size, progress=not args.no_progress)
            print(json.dumps(summary, indent=1))
        else:
            overrides = parse_config_overrides(extra)
            train(args.config, args.output, workers=args.workers, shards=args.shards,
                  overrides=overrides, address=args.address, eval_every=args.eval_every)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
