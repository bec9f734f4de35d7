"""Assemble a raw-text pipeline from trained pipelines: a base (a pipeline
directory whose tokenizer is kept, or ``blank:LANG``) plus components
sourced from other trained pipelines, in order (spaCy's
``add_pipe(source=...)``: each keeps its trained weights and settings
exactly). `scripts/assemble_pipeline.py` is the command line over it.
"""
from pathlib import Path
from typing import List, Optional, Tuple

import spacy
from spacy.lang.char_classes import ALPHA, HYPHENS
from spacy.tokenizer import Tokenizer
from spacy.util import compile_infix_regex

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


def add_quote_tags(nlp, after: str) -> None:
    """`ptb_quote_tags` after the POS tagger `after`: running-text quotes and
    brackets get the Penn Treebank's tags, a straight quote by its direction
    (`spacy_adf.pipeline.quote_tags`). The tagger learned quotes and brackets
    as PTB tokens (``, '', -LRB-, -RCB-), so it has no evidence for the
    direction of a straight quote, nor for a bracket written as itself."""
    nlp.add_pipe("ptb_quote_tags", name="quote_tags", after=after)


def assemble(base: str, sources: List[str], name: Optional[str] = None, version: Optional[str] = None,
             keep_hyphenated: bool = False, quote_tags_after: Optional[str] = None, ptb_tokens: bool = False):
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
    if quote_tags_after:
        add_quote_tags(nlp, quote_tags_after)
    if nlp.config["nlp"].get("after_pipeline_creation") is None:
        # Docs sent between processes (nlp.pipe(n_process=...), Ray) without
        # srsly's hook lookups on every msgpack call (serialization.msgpack_hooks)
        nlp.config["nlp"]["after_pipeline_creation"] = {"@callbacks": CACHED_MSGPACK_HOOKS}
    if name:
        nlp.meta["name"] = name
    if version:
        nlp.meta["version"] = version
    return nlp
