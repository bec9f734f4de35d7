"""python -m spacy_adf.distributed annotate|train ... (`annotate --help`, `train --help`).

Every argument, input and output folder is checked before Ray starts. A
rerun of the same command resumes: annotate skips the shards already
written, train goes on after the last epoch it saved. Ctrl-C ends with one
line saying what was saved.
"""
import argparse
import json
import sys

from spacy.cli._util import parse_config_overrides


class HelpFormatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """The module doc as written, and every option's default (an option
    whose default is None says in its help what it then does)."""

    def _get_help_string(self, action):
        if action.default is None:
            return action.help
        return super()._get_help_string(action)


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m spacy_adf.distributed", description=__doc__,
                                formatter_class=HelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    a = sub.add_parser("annotate", help="annotate a large corpus with a pipeline on Ray workers",
                       formatter_class=HelpFormatter,
                       description="Annotate INPUT into OUTPUT (DocBin or JSONL shards and manifest.json); "
                                   "each Doc keeps its input line number in doc.user_data['input_line'].")
    a.add_argument("model", help="pipeline directory or installed package")
    a.add_argument("input", help="text file (a document a line), JSONL, DocBin (.spacy), folder or glob")
    a.add_argument("output", help="folder for the shards and manifest.json (new, empty, or a run to resume)")
    a.add_argument("--shard-size", type=int, default=10_000, help="input lines (Docs) per shard")
    a.add_argument("--format", choices=["spacy", "jsonl"], default="spacy", help="shard file format")
    a.add_argument("--text-field", default="text", help="the text field of JSONL input")
    a.add_argument("--batch-size", type=int, default=256, help="nlp.pipe batch size")
    a.add_argument("--no-progress", action="store_true", help="no progress bar")
    t = sub.add_parser("train", help="iterative parameter mixing with a spacy train config",
                       formatter_class=HelpFormatter,
                       description="Train CONFIG by iterative parameter mixing; other options are config "
                                   "overrides as for spacy train (--paths.train ...). A streamed config "
                                   "(max_epochs = -1) runs ceil(max_steps / batches per pass) epochs.")
    t.add_argument("config", help="a spacy train config")
    t.add_argument("--output", "-o", default=None,
                   help="folder for model-last, model-best and the checkpoint (new, empty, or a run to resume; "
                        "default: nothing is saved)")
    t.add_argument("--shards", type=int, default=None, help="shards (actors) per epoch (default: as many as --workers)")
    t.add_argument("--eval-every", type=int, default=1,
                   help="evaluate on dev (and write model-best if better) every E epochs and after the last")
    for sp in (a, t):
        sp.add_argument("--workers", "-w", type=int, default=2,
                        help="Ray actors, one CPU each (the CPUs of the embedded Ray without --address)")
        sp.add_argument("--address", default=None,
                        help="join this Ray cluster (HOST:PORT, or 'auto' for the one `ray start` made here; "
                        "default: start an embedded Ray with --workers CPUs)")
    return p


def main(argv=None) -> int:
    p = parser()
    args, extra = p.parse_known_args(argv)
    if args.command == "annotate" and extra:
        p.error(f"unknown arguments: {extra}")
    # imported here: --help and argument errors need neither spaCy's pipelines nor Ray
    from .annotate import annotate
    from .raysupport import Interrupted
    from .train import train

    try:
        if args.command == "annotate":
            summary = annotate(args.model, args.input, args.output, workers=args.workers, address=args.address,
                               shard_size=args.shard_size, fmt=args.format, text_field=args.text_field,
                               batch_size=args.batch_size, progress=not args.no_progress)
            print(json.dumps(summary, indent=1))
        else:
            train(args.config, args.output, workers=args.workers, shards=args.shards,
                  overrides=parse_config_overrides(extra), address=args.address, eval_every=args.eval_every)
    except (FileNotFoundError, ValueError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:  # before the run was set up
        print("interrupted: nothing saved", file=sys.stderr)
        return 130
    except Interrupted as e:  # what was saved, in one line
        print(e, file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
