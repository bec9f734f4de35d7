"""Assemble a raw-text pipeline from trained pipelines (``python -m spacy_adf
assemble``: a base plus components sourced from others, each kept exactly as
trained), and a pipeline whose tokenizer is a trained segmenter
(``segmenter-tokenizer``); docs/pipelines.md."""
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

import spacy
from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex

from ..command_line import command_parser
from ..pipeline import quote_tags  # noqa: F401 (registers ptb_quote_tags)
from ..serialization.msgpack_hooks import REGISTERED_NAME as CACHED_MSGPACK_HOOKS
from ..tokenizers.checked import REGISTERED_NAME as CHECKED_TOKENIZER, checked_tokenizer
from ..tokenizers.english import ptb_english_tokenizer

# spaCy's infix rule that splits "rate-sensitive" into three tokens; the Penn
# Treebank (CoNLL-2000, the English POS tagger's and chunkers' training data)
# keeps hyphenated words whole
HYPHEN_INFIX = r"(?<=[{a}0-9])(?:{h})(?=[{a}])".format(a=ALPHA, h=HYPHENS)


def keep_hyphenated_words(nlp) -> None:
    """Make the tokenizer keep hyphenated words whole (saved with it)."""
    infixes = [x for x in nlp.Defaults.infixes if x != HYPHEN_INFIX]
    if len(infixes) == len(nlp.Defaults.infixes):
        raise SystemExit(f"--keep-hyphenated: the {nlp.lang} tokenizer has no hyphen infix rule to remove")
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer


def parse_source(spec: str) -> Tuple[Optional[str], Path, Optional[str]]:
    """(name or None, pipeline path, component or None) of a --source value."""
    name, sep, rest = spec.partition("=")
    if not sep:
        name, rest = None, spec
    path, sep, component = rest.rpartition(":")
    if not sep or not component or "/" in component:
        path, component = rest, None
    return name, Path(path), component or name


def parse_meta_source(spec: str) -> dict:
    """{"name", "url", "license"} of a --meta-source NAME|URL|LICENSE value
    (an entry of the meta's "sources", which spacy package shows)."""
    parts = spec.split("|")
    if len(parts) != 3 or not parts[0] or not parts[2]:
        raise SystemExit(f"--meta-source takes NAME|URL|LICENSE (URL may be empty), not {spec!r}")
    return {"name": parts[0], "url": parts[1], "license": parts[2]}


# nlp.pipe's default batch size in an assembled pipeline: spaCy's 1,000 gives
# n_process=2 on 1,000 documents one batch, so one process does all the work
BATCH_SIZE = 64


def assemble(base: str, sources: List[str], name: Optional[str] = None, version: Optional[str] = None,
             keep_hyphenated: bool = False, quote_tags_after: Optional[str] = None, ptb_tokens: bool = False,
             meta_sources: Sequence[str] = (), batch_size: int = BATCH_SIZE):
    if base.startswith("blank:"):
        nlp = spacy.blank(base[len("blank:"):])
    else:
        nlp = spacy.load(base)
    if keep_hyphenated:
        keep_hyphenated_words(nlp)
    if ptb_tokens:
        ptb_english_tokenizer(nlp)
    if type(nlp.tokenizer) is Tokenizer:  # spaCy's own: save it checked, as every other file
        nlp.tokenizer = checked_tokenizer(nlp.tokenizer)
        nlp.config["nlp"]["tokenizer"] = {"@tokenizers": CHECKED_TOKENIZER}
    loaded = {}
    for spec in sources:
        as_name, path, component = parse_source(spec)
        if not path.exists():
            raise SystemExit(f"--source {spec}: no pipeline at {path} (train it first)")
        if path not in loaded:
            loaded[path] = spacy.load(path)
        source = loaded[path]
        components = [component] if component else list(source.pipe_names)
        for comp in components:
            if comp not in source.pipe_names:
                raise SystemExit(f"--source {spec}: {path} has no component {comp!r} "
                                 f"(it has {source.pipe_names})")
            nlp.add_pipe(comp, name=as_name if component else comp, source=source)
    if quote_tags_after:  # the Penn Treebank's tags for quotes and brackets (pipeline.quote_tags)
        nlp.add_pipe("ptb_quote_tags", name="quote_tags", after=quote_tags_after)
    if nlp.config["nlp"].get("after_pipeline_creation") is None:
        # Docs sent between processes (nlp.pipe(n_process=...), Ray) without
        # srsly's hook lookups on every msgpack call (serialization.msgpack_hooks)
        nlp.config["nlp"]["after_pipeline_creation"] = {"@callbacks": CACHED_MSGPACK_HOOKS}
    if batch_size < 1:
        raise SystemExit(f"--batch-size must be >= 1, not {batch_size}")
    nlp.batch_size = batch_size
    nlp.config["nlp"]["batch_size"] = batch_size
    if name:
        nlp.meta["name"] = name
    if meta_sources:
        nlp.meta["sources"] = list(nlp.meta.get("sources") or []) + [parse_meta_source(m) for m in meta_sources]
    if version:
        nlp.meta["version"] = version
    return nlp


def segmenter_tokenizer_pipeline(model: Path, lang: Optional[str] = None, user_dict: Optional[Path] = None):
    """A blank pipeline whose tokenizer is `spacy_adf.Segmenter.v1` holding
    the trained adf_segmenter of ``model`` (words straight from the text, no
    character Doc)."""
    lang = lang or spacy.load(model).lang
    nlp = spacy.blank(lang, config={
        "nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}},
        "initialize": {"tokenizer": {"segmenter_model": str(model),
                                     "user_dict": None if user_dict is None else str(user_dict)}},
    })
    nlp.initialize()
    return nlp


def main(argv=None) -> int:
    p = command_parser("assemble", "Assemble a raw-text pipeline from trained pipelines.")
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
    p.add_argument("--meta-source", action="append", default=[], metavar="NAME|URL|LICENSE",
                   help="a corpus or resource the pipeline was trained with, for the meta's sources (repeatable)")
    p.add_argument("--batch-size", type=int, default=BATCH_SIZE,
                   help=f"nlp.pipe's default batch size (default {BATCH_SIZE}; spaCy's own is 1,000, which leaves "
                        "n_process=2 idle on a thousand documents)")
    args = p.parse_args(argv)
    nlp = assemble(args.base, args.source, args.name, args.version, args.keep_hyphenated, args.quote_tags_after,
                   args.ptb_tokens, args.meta_source, args.batch_size)
    nlp.to_disk(args.output)
    print(f"saved {nlp.lang} pipeline {nlp.pipe_names} to {args.output}")
    return 0


def segmenter_tokenizer_main(argv=None) -> int:
    p = command_parser("segmenter-tokenizer", "Save a pipeline whose tokenizer is the trained adf_segmenter of "
                       "MODEL (spacy_adf.Segmenter.v1: words straight from the text, no character Doc).")
    p.add_argument("model", type=Path, help="a trained adf_segmenter pipeline")
    p.add_argument("output", type=Path)
    p.add_argument("--lang", default=None, help="language of the new pipeline (default: the model's)")
    p.add_argument("--user-dict", type=Path, default=None)
    args = p.parse_args(argv)
    if not args.model.is_dir():
        p.error(f"{args.model} is not a pipeline directory (train the segmenter first)")
    nlp = segmenter_tokenizer_pipeline(args.model, args.lang, args.user_dict)
    nlp.to_disk(args.output)
    print(f"saved {nlp.lang} pipeline with the spacy_adf.Segmenter.v1 tokenizer to {args.output}")
    return 0
