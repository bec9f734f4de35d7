"""What an adf_tagger labels: entities, span groups, or a token attribute.

A target turns gold annotation into one label string per token of the
predicted Doc, names the CRF's tag set, and writes predicted labels back.
Spec strings: "ents", "spans:KEY", "tag", "pos", "_.EXTENSION".
"""
from typing import Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.attrs import ORTH
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span, Token
from spacy.training import Example

from ..corpora.iob import SCHEMES, iob_to_spans, spans_to_tags


class Target:
    spec: str
    is_spans = False

    def tag_names(self, labels: Sequence[str]) -> List[str]:
        return list(labels)

    def labels_in(self, example: Example) -> Iterable[str]:
        raise NotImplementedError

    def gold(self, example: Example) -> List[Optional[str]]:
        raise NotImplementedError

    def set(self, doc: Doc, tags: List[str], confidences: Optional[numpy.ndarray]) -> None:
        raise NotImplementedError

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        raise NotImplementedError


class SpanTarget(Target):
    is_spans = True

    def __init__(self, spec: str, scheme: str):
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
        self.spec = spec
        self.scheme = scheme
        self.key = None if spec == "ents" else spec[len("spans:"):]
        if self.key == "":
            raise ValueError("target 'spans:KEY' needs a key, e.g. 'spans:chunks'")

    def _spans(self, doc: Doc):
        if self.key is None:
            return doc.ents
        if self.key not in doc.spans:
            return None
        return doc.spans[self.key]

    def tag_names(self, labels):
        names = ["O"]
        prefixes = ("B", "I") if self.scheme == "BIO" else ("B", "I", "L", "U")
        for label in labels:
            names.extend(f"{p}-{label}" for p in prefixes)
        return names

    def labels_in(self, example):
        spans = self._spans(example.reference)
        if spans is None:
            raise ValueError(
                f"a reference Doc has no span group {self.key!r} (target {self.spec!r}); "
                f"read the corpus with iob_target='spans:{self.key}' or change the target"
            )
        return [s.label_ for s in spans]

    def gold(self, example):
        spans = self._spans(example.reference)
        if spans is None:
            self.labels_in(example)  # raises the explanatory error
        if same_tokens(example):
            triples = sorted((s.start, s.end, s.label_) for s in spans)
        else:
            aligned = example.get_aligned_spans_y2x(list(spans))
            triples = sorted((s.start, s.end, s.label_) for s in aligned)
        return spans_to_tags(len(example.predicted), triples, self.scheme)

    def set(self, doc, tags, confidences):
        spans = [Span(doc, s, e, label=label) for s, e, label in iob_to_spans(tags)]
        if self.key is None:
            doc.ents = spans
        else:
            doc.spans[self.key] = spans
            if confidences is not None:
                doc.spans[self.key].attrs["scores"] = [
                    float(confidences[s.start:s.end].min()) for s in doc.spans[self.key]
                ]

    def score(self, examples, **kwargs):
        if self.key is None:
            return Scorer.score_spans(examples, "ents", **kwargs)
        key = self.key
        return Scorer.score_spans(
            examples,
            f"spans_{key}",
            getter=lambda doc, attr: doc.spans.get(key, []),
            has_annotation=lambda doc: key in doc.spans,
            **kwargs,
        )


class TokenAttrTarget(Target):
    def __init__(self, spec: str):
        self.spec = spec
        if spec.startswith("_."):
            self.ext = spec[2:]
            if not self.ext or not Token.has_extension(self.ext):
                raise ValueError(
                    f"target {spec!r} names a token extension that is not registered; "
                    f"call Token.set_extension({self.ext!r}, default=None) first"
                )
            self.attr = None
        else:
            self.ext = None
            self.attr = spec  # "tag" or "pos"

    def _get(self, token):
        if self.ext is not None:
            value = token._.get(self.ext)
            return None if value in (None, "") else str(value)
        value = getattr(token, self.attr + "_")
        return value or None

    def labels_in(self, example):
        return [v for v in (self._get(t) for t in example.reference) if v is not None]

    def gold(self, example):
        if same_tokens(example):
            return [self._get(t) for t in example.reference]
        out: List[Optional[str]] = []
        align = example.alignment.x2y
        ref = example.reference
        for i in range(len(example.predicted)):
            idx = align[i]
            out.append(self._get(ref[int(idx[0])]) if len(idx) == 1 else None)
        return out

    def set(self, doc, tags, confidences):
        for token, tag in zip(doc, tags):
            if self.ext is not None:
                token._.set(self.ext, tag)
            else:
                setattr(token, self.attr + "_", tag)

    def score(self, examples, **kwargs):
        if self.ext is None:
            return Scorer.score_token_attr(examples, self.attr, **kwargs)
        ext = self.ext
        return Scorer.score_token_attr(
            examples, ext, getter=lambda token, attr: token._.get(attr) or "", **kwargs
        )


def same_tokens(example: Example) -> bool:
    """True if predicted and reference have identical tokens (no alignment needed)."""
    x, y = example.predicted, example.reference
    if len(x) != len(y):
        return False
    return bool(numpy.array_equal(x.to_array(ORTH), y.to_array(ORTH)))


def make_target(spec: str, scheme: str = "BIO") -> Target:
    if not isinstance(spec, str):
        raise ValueError(f"target must be a string, got {spec!r}")
    if spec == "ents" or spec.startswith("spans:"):
        return SpanTarget(spec, scheme)
    if spec in ("tag", "pos") or spec.startswith("_."):
        return TokenAttrTarget(spec)
    raise ValueError(
        f"unknown target {spec!r}: use 'ents', 'spans:KEY', 'tag', 'pos' or '_.EXTENSION'"
    )
