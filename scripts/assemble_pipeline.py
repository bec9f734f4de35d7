"""Assemble a raw-text pipeline from trained pipelines: a base (a pipeline
directory whose tokenizer is kept, or ``blank:LANG``) plus components
sourced from other trained pipelines, in order, saved as one pipeline
directory that `spacy package` takes.

    python -m scripts.assemble_pipeline training/pipeline_en --base blank:en \\
        --source tagger=training/pos_conll2000/model-last \\
        --source np_chunker=training/np/model-last:chunker \\
        --name adf_chunk --version 0.1.0

``--source NAME=PATH[:COMPONENT]`` adds COMPONENT (default NAME) of the
pipeline at PATH under the name NAME; ``--source PATH`` adds all of its
components under their own names. Each sourced component keeps its trained
weights and settings exactly (spaCy's ``add_pipe(source=...)``).
"""
import argparse
import sys
from pathlib import Path

from spacy_adf.tools.assemble import assemble


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("output", type=Path)
    p.add_argument("--base", required=True, help="a pipeline directory or blank:LANG")
    p.add_argument("--source", action="append", default=[], help="NAME=PATH[:COMPONENT] or PATH")
    p.add_argument("--name", default=None, help="meta name (spacy package prefixes the language)")
    p.add_argument("--version", default=None)
    p.add_argument("--keep-hyphenated", action="store_true",
                   help="tokenizer: keep hyphenated words whole, as the Penn Treebank does")
    p.add_argument("--ptb-tokens", action="store_true",
                   help="tokenizer: the Penn Treebank's tokens where spaCy's English rules differ "
                        "(spacy_adf.tokenizers.english; implies --keep-hyphenated)")
    p.add_argument("--quote-tags-after", default=None, metavar="TAGGER",
                   help="add an attribute_ruler after TAGGER that tags straight and typographic quotes as PTB `` / ''")
    args = p.parse_args(argv)
    nlp = assemble(args.base, args.source, args.name, args.version, args.keep_hyphenated, args.quote_tags_after,
                   args.ptb_tokens)
    nlp.to_disk(args.output)
    print(f"saved {nlp.lang} pipeline {nlp.pipe_names} to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
