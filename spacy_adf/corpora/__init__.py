"""Corpus readers for spacy-adf.

Readers only (tag schemes live in ``spacy_adf.tags``); ``conll``, ``docbin``
and ``convert`` import spaCy, so their names are loaded lazily on first
access. Importing ``conll``/``docbin`` registers the readers ``spacy_adf.ConllCorpus.v1`` and
``spacy_adf.DocBinCorpus.v1`` (the package entry points do this for spaCy).
"""
from importlib import import_module
from typing import Any

_LAZY = {
    "read_conll": "conll",
    "conll_to_docs": "conll",
    "create_conll_reader": "conll",
    "make_predicted": "conll",
    "create_docbin_reader": "docbin",
}

__all__ = [*_LAZY]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
