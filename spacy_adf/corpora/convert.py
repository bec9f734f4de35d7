"""Convert a corpus to a ``.spacy`` DocBin of reference docs, for `spacy
evaluate` and `spacy_adf.DocBinCorpus.v1` (``python -m spacy_adf convert``;
docs/corpora.md, "Converting to DocBin")."""
import sys
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple, Union

import spacy
from spacy.tokens import Doc, DocBin
from spacy.vocab import Vocab

from ..command_line import command_parser
from ..serialization.text_lines import check_file, read_lines
from .conll import conll_to_docs, parse_iob_target
from .segmented import read_segmented


def _comma_list(text: str) -> List[str]:
    return [item.strip() for item in text.split(",") if item.strip()]


def convert(
    input_path: Union[str, Path],
    output_path: Union[str, Path],
    *,
    columns: Sequence[str],
    iob_target: str = "ents",
    keep_labels: Optional[Sequence[str]] = None,
    lang: str = "en",
    sep: Optional[str] = None,
    also_spans: Optional[Dict[str, Sequence[str]]] = None,
) -> Tuple[int, int]:
    """Write the reference docs of ``input_path``; return ``(n_docs, n_tokens)``.
    ``also_spans`` {KEY: labels}: further span groups, each holding the
    spans of ``iob_target`` (a ``spans:`` target) with those labels, e.g.
    {"chunks": ["NP"]} beside ``spans:phrases`` for a pipeline with both
    chunkers."""
    extra_from = parse_iob_target(iob_target)
    if also_spans and extra_from is None:
        raise ValueError("also_spans needs a spans:KEY iob_target to take its spans from")
    vocab = spacy.blank(lang).vocab
    pairs = conll_to_docs(
        vocab,
        input_path,
        columns=columns,
        iob_target=iob_target,
        keep_labels=keep_labels,
        input_attrs=(),  # the predicted side is rebuilt by the DocBin reader
        sep=sep,
    )

    def references():
        for _, reference in pairs:
            for key, labels in (also_spans or {}).items():
                reference.spans[key] = [span for span in reference.spans[extra_from] if span.label_ in labels]
            yield reference

    return write_docbin(references(), output_path)


def write_docbin(docs: Iterable[Doc], output_path: Union[str, Path]) -> Tuple[int, int]:
    """Save the Docs as one DocBin; ``(n_docs, n_tokens)``."""
    docbin = DocBin(store_user_data=False)
    n_tokens = 0
    for doc in docs:
        docbin.add(doc)
        n_tokens += len(doc)
    output_path = Path(output_path)
    output_path.parent.mkdir(parents=True, exist_ok=True)
    docbin.to_disk(output_path)
    return len(docbin), n_tokens


SENTENCE_FORMATS = ("segmented", "knp", "cabocha", "conllu")


def convert_sentences(input_path: Union[str, Path], output_path: Union[str, Path], *,
                      format: str) -> Tuple[int, int]:
    """Write the reference docs of a segmented or dependency corpus; ``(n_docs, n_tokens)``. A DocBin
    holds no language, so a plain Vocab does (spaCy's Japanese one would need SudachiPy)."""
    if format not in SENTENCE_FORMATS:
        raise ValueError(f"format must be conll or one of {list(SENTENCE_FORMATS)}, not {format!r}")
    vocab = Vocab()
    if format == "segmented":
        docs = (Doc(vocab, words=words, spaces=[False] * len(words)) for words in read_segmented(input_path))
    else:
        from .bunsetsu import bunsetsu_docs

        docs = bunsetsu_docs(input_path, vocab, format=format, bad_heads="skip")
    return write_docbin(docs, output_path)


CHUNK_TYPES = frozenset({"NP", "VP", "PP", "ADJP", "ADVP", "SBAR", "PRT", "CONJP", "INTJ", "LST", "UCP"})


def guess_iob_target(path: Path, columns: Sequence[str], sep: Optional[str]) -> str:
    """'spans:chunks' if every IOB type in the file is a CoNLL-2000 phrase type, else 'ents'."""
    if "iob" not in columns:
        return "ents"
    k = list(columns).index("iob")
    types = set()
    for _, line in read_lines(check_file(path, "CoNLL", hint="")):
        cols = line.split(sep)
        if len(cols) > k and "-" in cols[k]:
            types.add(cols[k].split("-", 1)[1])
    return "spans:chunks" if types and types <= CHUNK_TYPES else "ents"


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = command_parser("convert", "Convert a corpus to a .spacy DocBin of reference docs.")
    parser.add_argument("input", type=Path, help="the corpus file")
    parser.add_argument("output", type=Path, help="output .spacy file")
    parser.add_argument("--format", default="conll", choices=("conll",) + SENTENCE_FORMATS,
                        help="conll (default): a CoNLL column file; segmented: one sentence of space-separated words "
                             "a line; knp, cabocha, conllu: a Japanese bunsetsu dependency corpus")
    parser.add_argument("--columns", default=None, type=_comma_list,
                        help="conll: comma-separated column names: words, tag, pos, lemma, iob, _")
    parser.add_argument("--iob-target", default="auto",
                        help="'ents', 'spans:KEY', or 'auto' (default): 'spans:chunks' when every IOB type is a "
                             "CoNLL-2000 phrase type (NP, VP, PP, ...), else 'ents'")
    parser.add_argument("--keep-labels", type=_comma_list, default=None,
                        help="comma-separated chunk labels to keep (others become O)")
    parser.add_argument("--also-spans", action="append", default=[], metavar="KEY=LABELS",
                        help="a further span group KEY with the --iob-target spans of the comma-separated LABELS "
                             "(repeatable; e.g. --iob-target spans:phrases --also-spans chunks=NP)")
    parser.add_argument("--lang", default="en", help="conll: language code for the vocab")
    parser.add_argument("--sep", default=None,
                        help="column separator (default: any whitespace; 'TAB' for a tab)")
    args = parser.parse_args(argv)
    sep = "\t" if args.sep in ("TAB", "\\t") else args.sep
    if not args.input.is_file():
        parser.error(f"input file not found: {args.input}")
    if args.format != "conll" and (args.columns or args.keep_labels or args.also_spans
                                   or args.iob_target != "auto"):
        parser.error(f"--columns, --iob-target, --keep-labels and --also-spans are for --format conll, "
                     f"not {args.format}")
    if args.format == "conll" and not args.columns:
        parser.error("--format conll needs --columns (e.g. words,tag,iob)")
    try:
        if args.format != "conll":
            n_docs, n_tokens = convert_sentences(args.input, args.output, format=args.format)
        else:
            n_docs, n_tokens = _convert_conll(args, sep)
    except ValueError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    print(f"Wrote {n_docs} docs ({n_tokens} tokens) to {args.output}")
    return 0


def _convert_conll(args, sep: Optional[str]) -> Tuple[int, int]:
    iob_target = args.iob_target
    if iob_target == "auto":
        iob_target = guess_iob_target(args.input, args.columns, sep)
        print(f"--iob-target auto: {iob_target}")
    also = {}
    for spec in args.also_spans:
        key, eq, labels = spec.partition("=")
        if not eq or not key or not _comma_list(labels):
            raise ValueError(f"--also-spans takes KEY=LABEL[,LABEL...], not {spec!r}")
        also[key] = _comma_list(labels)
    return convert(args.input, args.output, columns=args.columns, iob_target=iob_target,
                   keep_labels=args.keep_labels, lang=args.lang, sep=sep, also_spans=also)
