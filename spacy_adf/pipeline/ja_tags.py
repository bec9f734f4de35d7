"""`ja_tags_from_morph`: ``token.tag_`` and ``token.pos_`` from the source POS in ``token.morph``
(docs/components.md, "Tokenizers and rule components")."""
from typing import Dict, Iterable, List, Tuple

from spacy.language import Language
from spacy.pipeline import Pipe
from spacy.tokens import Doc

from ..lang.ja.pos import juman_upos, main_subpos, make_tag, unidic_upos
from .handled_calls import HandledCalls

TAGSETS = {"juman": juman_upos, "unidic": unidic_upos}


@Language.factory(
    "ja_tags_from_morph",
    assigns=["token.tag", "token.pos"],
    requires=["token.morph"],
    default_config={"tagset": "juman"},
)
def make_ja_tags_from_morph(nlp: Language, name: str, *, tagset: str) -> "JaTagsFromMorph":
    """tagset: "juman" (KNP corpora, e.g. KWDLC) or "unidic" (CaboCha, UD)."""
    return JaTagsFromMorph(name, tagset=tagset)


class JaTagsFromMorph(HandledCalls, Pipe):
    """No weights (so no ``model``): a table from morph fields to tags."""

    def __init__(self, name: str = "ja_tags_from_morph", *, tagset: str = "juman"):
        if tagset not in TAGSETS:
            raise ValueError(f"[{name}] tagset must be one of {sorted(TAGSETS)}, not {tagset!r}")
        self.name = name
        self.tagset = tagset
        self._upos = TAGSETS[tagset]
        self._cache: Dict[int, Tuple[str, str]] = {}  # morph key -> (tag_, pos_)

    def predict(self, docs: Iterable[Doc]) -> List[List[Tuple[str, str]]]:
        """Per Doc, (tag_, pos_) of each token (("", "") without SrcPos)."""
        return [[self._tags(token.morph) for token in doc] for doc in docs]

    def _tags(self, morph) -> Tuple[str, str]:
        key = morph.key
        tags = self._cache.get(key)
        if tags is None:
            feats = morph.to_dict()
            pos = feats.get("SrcPos")
            if pos is None:
                tags = ("", "")
            else:
                subpos = feats.get("SrcSubPos", "*")
                tags = (make_tag(pos, subpos), self._upos(pos, main_subpos(subpos)))
            self._cache[key] = tags
        return tags

    def set_annotations(self, docs: Iterable[Doc], tags: List[List[Tuple[str, str]]]) -> None:
        """Set tag_ and pos_ of the tokens that have a SrcPos (the others keep theirs)."""
        for doc, doc_tags in zip(docs, tags):
            for token, (tag, pos) in zip(doc, doc_tags):
                if tag:
                    token.tag_, token.pos_ = tag, pos
