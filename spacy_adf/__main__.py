"""python -m spacy_adf COMMAND ...: the project's commands for users.

  shrink MODEL OUTPUT [--tolerance T] [--report FILE] [--paths.dev ...]
      prune the CRF weights of a trained pipeline as far as its dev score
      allows (spacy_adf.tools.shrink) and save the smaller pipeline

`python -m spacy_adf COMMAND --help` tells a command's options.
"""
import argparse
import sys
from pathlib import Path

import srsly
from spacy.cli._util import parse_config_overrides


def shrink_command(argv) -> int:
    p = argparse.ArgumentParser(
        prog="python -m spacy_adf shrink",
        description="Prune the CRF weights of a trained pipeline as far as its dev score allows.")
    p.add_argument("model", type=Path, help="a trained pipeline directory")
    p.add_argument("output", type=Path, help="where the smaller pipeline is saved")
    p.add_argument("--tolerance", type=float, default=0.0002,
                   help="largest drop of the weighted dev score (0-1 scale) a pruning may cost")
    p.add_argument("--report", type=Path, default=None, help="write what was pruned as JSON here")
    args, rest = p.parse_known_args(argv)
    overrides = parse_config_overrides(rest)  # e.g. --paths.dev other/dev.txt
    if not args.model.is_dir():
        p.error(f"{args.model} is not a pipeline directory")
    if args.tolerance < 0:
        p.error("--tolerance must be >= 0")
    from .tools.shrink import shrink_pipeline

    report = shrink_pipeline(args.model, args.output, args.tolerance, overrides)
    if args.report is not None:
        srsly.write_json(args.report, report)
    return 0


COMMANDS = {"shrink": shrink_command}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in COMMANDS:
        print(__doc__)
        return 0 if not argv or argv[0] in ("-h", "--help") else 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
