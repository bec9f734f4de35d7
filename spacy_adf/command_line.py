"""What the ``python -m spacy_adf COMMAND`` commands share (__main__.py
dispatches to them): their parser, and a ValueError printed as an error."""
import argparse
import sys
from typing import Any, Callable, Sequence, Tuple


def command_parser(name: str, description: str) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=f"python -m spacy_adf {name}", description=description)


def run_command(argv, name: str, description: str, arguments: Sequence[Tuple[str, dict]],
                run: Callable[[Any], None]) -> int:
    """A command given as its (name, argparse options) arguments and ``run(args)``,
    whose ValueError is printed (exit status 1)."""
    p = command_parser(name, description)
    for arg, options in arguments:
        p.add_argument(arg, **options)
    args = p.parse_args(argv)
    try:
        run(args)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    return 0
