"""Training Examples as bytes (both Docs in DocBins with span groups and user data), so
the driver reads the corpus once and the IPM actors get it through Ray. No Ray here."""
from typing import List

import srsly
from spacy.tokens import DocBin
from spacy.training import Example

from .annotate import cached_msgpack_codecs


def examples_to_bytes(examples: List[Example]) -> bytes:
    with cached_msgpack_codecs():
        predicted = DocBin(store_user_data=True, docs=[eg.predicted for eg in examples])
        reference = DocBin(store_user_data=True, docs=[eg.reference for eg in examples])
        return srsly.msgpack_dumps({"predicted": predicted.to_bytes(), "reference": reference.to_bytes()})


def examples_from_bytes(data: bytes, vocab) -> List[Example]:
    with cached_msgpack_codecs():
        msg = srsly.msgpack_loads(data)
        predicted = DocBin(store_user_data=True).from_bytes(msg["predicted"]).get_docs(vocab)
        reference = DocBin(store_user_data=True).from_bytes(msg["reference"]).get_docs(vocab)
        return [Example(p, r) for p, r in zip(predicted, reference)]
