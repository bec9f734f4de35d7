"""What an adf_tagger labels (entities, span groups, or a token attribute): gold labels per
predicted token, the CRF's tag set, predicted labels written back (docs/training.md, "Targets").
"""
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import numpy
from spacy.attrs import MORPH, TAG
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span, Token
from spacy.training import Example

from ..scorers.spans import identity_aligned, same_tokens, score_span_sets
from ..scorers.spans import score_spans as fast_score_spans
from ..scorers.spans import triples as span_triples
from ..tags.iob import SCHEMES, iob_to_spans, spans_to_tags, split_tag


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

    def set_empty(self, doc: Doc) -> None:
        """What `set` leaves on a Doc without tokens (token targets: nothing)."""

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        raise NotImplementedError

    @property
    def score_weights(self) -> Dict[str, Optional[float]]:
        """The scores spacy train weighs and shows for this target."""
        raise NotImplementedError


# iob.py needs a type in every tag; spans labelled "" use this one inside the
# target and bare tags ("B", "I") in the CRF's tag set.
_NO_LABEL = "\x00"
_NO_LABEL_SUFFIX = "-" + _NO_LABEL


def _bare(tag: str) -> str:
    return tag[: -len(_NO_LABEL_SUFFIX)] if tag.endswith(_NO_LABEL_SUFFIX) else tag


def _typed(tag: str) -> str:
    return tag + _NO_LABEL_SUFFIX if len(tag) == 1 and tag != "O" else tag


def covering_spans(tags: Sequence[str]) -> List[Tuple[int, int, str]]:
    """(start, end, type) spans that cover all tokens of `tags` (docs/training.md, "Targets")."""
    spans: List[List] = []  # [start, end, type or None]
    for i, tag in enumerate(tags):
        prefix, kind = split_tag(tag, i)
        span = spans[-1] if spans else None
        if span is None or prefix in ("B", "S") or (
            prefix in ("I", "E") and span[2] is not None and kind != span[2]
        ):
            spans.append([i, i + 1, kind or None])
            continue
        span[1] = i + 1
        if span[2] is None and kind:
            span[2] = kind  # a span opened by O takes its first type
    if spans and spans[0][2] is None:
        spans[0][2] = spans[1][2] if len(spans) > 1 else ""
    return [(s, e, kind) for s, e, kind in spans]


def _outside_split_spans(tags: Sequence[str]) -> List[Tuple[int, int, str]]:
    """`iob_to_spans` of the typed tags, decoding only the runs between "O" tags (an O resets it)."""
    inside = [i for i, t in enumerate(tags) if t != "O"]
    if not inside:
        return []
    out: List[Tuple[int, int, str]] = []
    start = prev = inside[0]
    for i in inside[1:] + [-1]:
        if i != prev + 1:
            run = [_typed(t) for t in tags[start:prev + 1]]
            out.extend((start + s, start + e, label) for s, e, label in iob_to_spans(run))
            start = i
        prev = i
    return out


class SpanTarget(Target):
    is_spans = True

    def __init__(self, spec: str, scheme: str, covering: bool = False):
        if scheme not in SCHEMES:
            raise ValueError(f"scheme must be one of {SCHEMES}, got {scheme!r}")
        self.spec = spec
        self.scheme = scheme
        self.covering = bool(covering)
        self.key = None if spec == "ents" else spec[len("spans:"):]
        if self.key == "":
            raise ValueError("target 'spans:KEY' needs a key, e.g. 'spans:chunks'")
        if self.covering and self.key is None:
            raise ValueError("covering applies to span groups ('spans:KEY'), not to 'ents'")

    def _spans(self, doc: Doc):
        if self.key is None:
            return doc.ents
        if self.key not in doc.spans:
            raise ValueError(
                f"a reference Doc has no span group {self.key!r} (target {self.spec!r}); "
                f"read the corpus with iob_target='spans:{self.key}' or change the target"
            )
        return doc.spans[self.key]

    def tag_names(self, labels):
        names = [] if self.covering else ["O"]
        prefixes = ("B", "I") if self.scheme == "BIO" else ("B", "I", "L", "U")
        for label in labels:
            names.extend(f"{p}-{label}" if label else p for p in prefixes)
        return names

    def labels_in(self, example):
        return [s.label_ for s in self._spans(example.reference)]

    def gold(self, example):
        spans = self._spans(example.reference)
        same = same_tokens(example.predicted, example.reference)
        if not same:
            spans = example.get_aligned_spans_y2x(list(spans))
        triples = sorted((s.start, s.end, s.label_ or _NO_LABEL) for s in spans)
        if self.covering and same:
            check_cover(len(example.reference), triples, self.spec)
        tags = [_bare(t) for t in spans_to_tags(len(example.predicted), triples, self.scheme)]
        if self.covering:
            # tokens no aligned gold span covers: unknown, so the example is skipped
            tags = [None if t == "O" else t for t in tags]
        return tags

    def chunks(self, tags: Sequence[str]) -> List[Tuple[int, int, str]]:
        """(start, end, label) of the spans `set` writes for these tags."""
        chunks = covering_spans([_typed(t) for t in tags]) if self.covering else _outside_split_spans(tags)
        return [(s, e, "" if label == _NO_LABEL else label) for s, e, label in chunks]

    def set(self, doc, tags, confidences):
        spans = [Span(doc, s, e, label=label) for s, e, label in self.chunks(tags)]
        if self.key is None:
            # what `doc.ents = spans` does, without building every Span again
            doc.set_ents(spans, default="outside")
        else:
            doc.spans[self.key] = spans
            if confidences is not None:
                doc.spans[self.key].attrs["scores"] = [
                    float(confidences[s.start:s.end].min()) for s in doc.spans[self.key]
                ]

    def set_empty(self, doc):
        # an empty Doc still gets its (empty) span group, as a one-space Doc does
        if self.key is not None:
            doc.spans[self.key] = []

    @property
    def score_weights(self):
        prefix = "ents" if self.key is None else f"spans_{self.key}"
        return {f"{prefix}_f": 1.0, f"{prefix}_p": 0.0, f"{prefix}_r": 0.0}

    @staticmethod
    def fast_scores(kwargs) -> bool:
        """Whether the options leave spaCy's span scores (labeled, no overlap): `fast_score_spans`."""
        return kwargs.get("labeled", True) is True and not kwargs.get("allow_overlap", False)

    def score_predictions(self, docs: Sequence[Doc], tags: Iterable[Sequence[str]],
                          references: Sequence[Doc]) -> Dict[str, object]:
        """`score` of (docs annotated with these tags, references), span groups only, from the tags
        alone (an annotated copy only of a Doc whose tokens differ from its reference's). Kept
        beside `score` for speed: 0.37 s against 0.53 s (one-tagger evaluation, CoNLL-2000 test)."""
        key = self.key
        if key is None:
            raise ValueError("score_predictions scores span groups ('spans:KEY'), not 'ents'")

        def aligned_sets():
            for doc, doc_tags, ref in zip(docs, tags, references):
                if key not in ref.spans:
                    continue
                gold = span_triples(ref.spans[key])
                chunks = self.chunks(doc_tags) if len(doc) else []
                pred = {(label, s, e - 1) for s, e, label in chunks}
                if not identity_aligned(pred, len(chunks), doc, ref):
                    annotated = doc.copy()
                    self.set(annotated, doc_tags, None)
                    spans = list(annotated.spans[key])
                    pred = span_triples(Example(annotated, ref).get_aligned_spans_x2y(spans, False))
                yield pred, gold

        return score_span_sets(aligned_sets(), f"spans_{key}")

    def score(self, examples, **kwargs):
        # spaCy's span scores; the fast equivalent unless options change them
        custom = not self.fast_scores(kwargs)
        score = Scorer.score_spans if custom else fast_score_spans
        extra = kwargs if custom else {}
        if self.key is None:
            return score(examples, "ents", **extra)
        key = self.key
        return score(
            examples,
            f"spans_{key}",
            getter=lambda doc, attr: doc.spans.get(key, []),
            has_annotation=lambda doc: key in doc.spans,
            **extra,
        )


class TokenTarget(Target):
    """A label per token by `label` of the reference token (None: unknown, as is a predicted token
    aligned to several reference tokens)."""

    def label(self, token: Token) -> Optional[str]:
        raise NotImplementedError

    def labels_in(self, example):
        return [v for v in (self.label(t) for t in example.reference) if v is not None]

    def gold(self, example):
        ref = example.reference
        if same_tokens(example.predicted, ref):
            return [self.label(t) for t in ref]
        align = example.alignment.x2y
        out: List[Optional[str]] = []
        for i in range(len(example.predicted)):
            idx = align[i]
            out.append(self.label(ref[int(idx[0])]) if len(idx) == 1 else None)
        return out


class TokenAttrTarget(TokenTarget):
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

    def label(self, token):
        if self.ext is not None:
            value = token._.get(self.ext)
            return None if value in (None, "") else str(value)
        value = getattr(token, self.attr + "_")
        return value or None

    def set(self, doc, tags, confidences):
        if self.attr == "tag":
            # what token.tag_ = tag does for every token, in one from_array
            strings = doc.vocab.strings
            ids = {tag: strings.add(tag) for tag in set(tags)}
            doc.from_array([TAG], numpy.array([ids[t] for t in tags], dtype=numpy.uint64))
            return
        for token, tag in zip(doc, tags):
            if self.ext is not None:
                token._.set(self.ext, tag)
            else:
                setattr(token, self.attr + "_", tag)

    @property
    def score_weights(self):
        return {f"{self.attr if self.ext is None else self.ext}_acc": 1.0}

    def score(self, examples, **kwargs):
        if self.ext is None:
            return Scorer.score_token_attr(examples, self.attr, **kwargs)
        ext = self.ext
        return Scorer.score_token_attr(
            examples, ext, getter=lambda token, attr: token._.get(attr) or "", **kwargs
        )


NO_MORPH = "_"


class MorphTarget(TokenTarget):
    def __init__(self, spec: str):
        self.spec = spec
        fields = [f.strip() for f in spec[len("morph:"):].split(",")]
        if not fields or any(not f or not f.replace("_", "").isalnum() for f in fields):
            raise ValueError(
                f"target {spec!r} needs morph field names, e.g. 'morph:SrcPos,SrcSubPos' "
                f"or 'morph:ConjForm'"
            )
        if len(set(fields)) != len(fields):
            raise ValueError(f"target {spec!r} names a morph field twice")
        self.fields = tuple(fields)
        self.name = "morph_" + "_".join(self.fields)
        # a corpus has few distinct analyses: label per analysis, fields per label
        self._label_cache: Dict[int, str] = {}
        self._fields_cache: Dict[str, Dict[str, str]] = {}
        # (morph key, label) -> merged morph key, valid for one vocab's morphology
        self._merged: Dict[Tuple[int, str], int] = {}
        self._merged_for = None

    def label(self, token: Token) -> Optional[str]:
        if not token.has_morph():
            return None
        key = token.morph.key
        label = self._label_cache.get(key)
        if label is None:
            feats = token.morph.to_dict()
            parts = [f"{f}={feats[f]}" for f in self.fields if f in feats]
            label = self._label_cache[key] = "|".join(parts) or NO_MORPH
        return label

    def _label_fields(self, label: str) -> Dict[str, str]:
        fields = self._fields_cache.get(label)
        if fields is None:
            fields = {} if label == NO_MORPH else dict(p.split("=", 1) for p in label.split("|"))
            self._fields_cache[label] = fields
        return fields

    def set(self, doc, tags, confidences):
        """Each token keeps its other morph fields and takes this target's fields from its label;
        each (analysis, label) pair is merged once per vocab, the MORPH column written in one call."""
        if len(tags) != len(doc):
            raise ValueError(f"[{self.spec}] {len(tags)} labels for a Doc of {len(doc)} tokens")
        morphology = doc.vocab.morphology
        if self._merged_for is not morphology:  # keys are only registered in that vocab
            self._merged, self._merged_for = {}, morphology
        merged = self._merged
        keys = doc.to_array(MORPH).tolist()
        out = numpy.empty(len(keys), dtype=numpy.uint64)
        for i, (key, tag) in enumerate(zip(keys, tags)):
            new = merged.get((key, tag))
            if new is None:
                new = merged[(key, tag)] = self._merge(morphology, key, tag)
            out[i] = new
        if len(out):
            doc.from_array([MORPH], out)

    def __getstate__(self):
        state = dict(self.__dict__)
        state["_merged"], state["_merged_for"] = {}, None  # tied to one vocab in this process
        return state

    def _merge(self, morphology, key: int, tag: str) -> int:
        """The morph key of analysis `key` with this target's fields set from `tag` (0: none)."""
        feats = morphology.feats_to_dict(morphology.get(key)) if key else {}
        out = {k: v for k, v in feats.items() if k not in self.fields}
        out.update(self._label_fields(tag))
        return morphology.add(out) if out else 0

    @property
    def score_weights(self):
        return {f"{self.name}_acc": 1.0}

    def score(self, examples, **kwargs):
        return Scorer.score_token_attr(
            examples, self.name, getter=lambda token, attr: self.label(token) or "", **kwargs
        )


def check_cover(n: int, triples: Sequence[Tuple[int, int, str]], spec: str) -> None:
    """Raise unless sorted (start, end, label) spans cover tokens 0..n in order."""
    end = 0
    for start, stop, _ in triples:
        if start != end:
            raise ValueError(
                f"target {spec!r} is covering, but a gold span group does not cover its Doc: "
                f"span [{start}, {stop}) where one starting at token {end} was expected"
            )
        end = stop
    if end != n:
        raise ValueError(
            f"target {spec!r} is covering, but a gold span group ends at token {end} "
            f"of a Doc of {n} tokens"
        )


def make_target(spec: str, scheme: str = "BIO", covering: bool = False) -> Target:
    if not isinstance(spec, str):
        raise ValueError(f"target must be a string, got {spec!r}")
    if spec == "ents" or spec.startswith("spans:"):
        return SpanTarget(spec, scheme, covering)
    token_target = (TokenAttrTarget if spec in ("tag", "pos") or spec.startswith("_.")
                    else MorphTarget if spec.startswith("morph:") else None)
    if token_target is not None:
        if covering:
            raise ValueError(f"covering applies to span groups ('spans:KEY'), not to {spec!r}")
        return token_target(spec)
    raise ValueError(
        f"unknown target {spec!r}: use 'ents', 'spans:KEY', 'tag', 'pos', '_.EXTENSION' "
        f"or 'morph:FIELD[,FIELD...]'"
    )
