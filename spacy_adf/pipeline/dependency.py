"""`pke_dependency`: Japanese bunsetsu dependency parsing with a polynomial-kernel SVM, an
adapter around `models.bunsetsu_parser.BunsetsuParser` (docs/components.md, "Japanese
dependency parsing").
"""
from typing import Callable, Dict, Iterable, List, Optional, Sequence

import numpy
from spacy.attrs import DEP, HEAD, IS_SPACE
from spacy.language import Language
from spacy.tokens import Doc, Span
from spacy.training import Example
from spacy.vocab import Vocab

from ..features.bunsetsu import FEATURE_GROUPS, check_groups
from ..lang.ja.bunsetsu import (
    BUNSETSU_KEY, DEFAULT_LABEL, INTRA_LABEL, ROOT_LABEL, bunsetsu_group, bunsetsu_heads,
    check_bunsetsu_heads, head_sentences, respect_sentence_ends, sentence_heads, set_bunsetsu_tree,
)
from ..models.bunsetsu_parser import BunsetsuParser, check_algorithm
from ..models.kernel_forms import check_classifier_options, check_trainer, check_trainer_settings, trainer_settings
from ..scorers.bunsetsu_deps import make_bunsetsu_dep_scorer
from .handled_calls import named_errors
from .kernel_component import KernelComponent
from .trainable import initialize_examples

TREE_ATTRS = [HEAD, DEP]


def _span_head(span: Span) -> Optional[Span]:
    """The head bunsetsu of a bunsetsu span (None for a root or a span of no parsed group)."""
    for group in span.doc.spans.values():
        heads = group.attrs.get("heads")
        if heads is None or len(heads) != len(group):
            continue
        for k, s in enumerate(group):
            if s.start == span.start and s.end == span.end:
                h = heads[k]
                return group[h] if h >= 0 else None
    return None


if not Span.has_extension("bunsetsu_head"):
    Span.set_extension("bunsetsu_head", getter=_span_head)


@Language.factory(
    "pke_dependency",
    assigns=["token.head", "token.dep", "token.is_sent_start", "doc.spans"],
    default_config={
        "spans_key": BUNSETSU_KEY,
        "degree": 3,
        "C": 1.0,
        "classifier": "pke",
        "sigma": 0.001,
        "xi": 1,
        "features": list(FEATURE_GROUPS),
        "min_feature_count": 1,
        "cache_size": 1000.0,
        "trainer": "libsvm",
        "merge_duplicates": False,
        "max_iter": -1,
        "epochs": 0,
        "n_threads": 1,
        "algorithm": "cascade",
        "scorer": {"@scorers": "spacy_adf.bunsetsu_dep_scorer.v1"},
    },
    default_score_weights={"bunsetsu_dep_acc": 1.0, "bunsetsu_sent_acc": 0.0, "bunsetsu_seg_f": None},
)
def make_pke_dependency(
    nlp: Language, name: str, *, spans_key: str, degree: int, C: float, classifier: str, sigma: float,
    xi: int, features: List[str], min_feature_count: int, cache_size: float, scorer: Optional[Callable],
    trainer: str = "libsvm", merge_duplicates: bool = False, n_threads: int = 1, algorithm: str = "cascade",
    max_iter: int = -1, epochs: int = 0,
) -> "PKEDependencyParser":
    """Create a pke_dependency parser (settings: docs/components.md, "Kernel component settings")."""
    return PKEDependencyParser(
        nlp.vocab, name, spans_key=spans_key, degree=degree, C=C, classifier=classifier, sigma=sigma,
        xi=xi, features=features, min_feature_count=min_feature_count, cache_size=cache_size,
        scorer=scorer, trainer=trainer, merge_duplicates=merge_duplicates, n_threads=n_threads,
        algorithm=algorithm, max_iter=max_iter, epochs=epochs,
    )


class ParsedHeads(list):
    """`predict`'s heads of each Doc, with its token tree (`trees`) and a copy of its heads
    (`given`), so `set_annotations` can tell that they are unchanged."""

    def __init__(self):
        super().__init__()
        self.trees: List[Optional[numpy.ndarray]] = []
        self.given: List[List[int]] = []

    def tree(self, k: int, heads: Sequence[int], n_tokens: int) -> Optional[numpy.ndarray]:
        """The token tree of Doc k if `heads` are still the ones it was made from."""
        if k >= len(self.trees) or self.trees[k] is None or len(self.trees[k]) != n_tokens:
            return None
        return self.trees[k] if list(heads) == self.given[k] else None


class PKEDependencyParser(KernelComponent):
    """``pke_dependency``: its plain model is a `BunsetsuParser`."""

    role = "parser"

    def __init__(
        self, vocab: Vocab, name: str = "pke_dependency", *, spans_key: str = BUNSETSU_KEY,
        degree: int = 3, C: float = 1.0, classifier: str = "pke", sigma: float = 0.001, xi: int = 1,
        features: Sequence[str] = FEATURE_GROUPS, min_feature_count: int = 1, cache_size: float = 1000.0,
        scorer: Optional[Callable] = make_bunsetsu_dep_scorer(), trainer: str = "libsvm",
        merge_duplicates: bool = False, n_threads: int = 1, algorithm: str = "cascade", max_iter: int = -1,
        epochs: int = 0,
    ):
        check_classifier_options(classifier, degree, sigma, xi, C)
        with named_errors(name):
            check_algorithm(algorithm)
        check_trainer_settings(trainer, classifier, cache_size, max_iter, epochs)
        check_groups(features)
        if not spans_key:
            raise ValueError("spans_key must name the span group that holds the bunsetsu")
        if min_feature_count < 1:
            raise ValueError("min_feature_count must be >= 1")
        if isinstance(n_threads, bool) or not isinstance(n_threads, int) or n_threads < 1:
            raise ValueError(f"[{name}] n_threads must be an integer >= 1, not {n_threads!r}")
        self._init_component(vocab, name, scorer, "pke_dependency", BunsetsuParser(features, algorithm=algorithm), {
            "spans_key": spans_key, "degree": int(degree), "C": float(C), "classifier": classifier,
            "sigma": float(sigma), "xi": int(xi), "features": list(features),
            "min_feature_count": int(min_feature_count), "cache_size": float(cache_size),
            "stats": {}, "trainer": trainer, "merge_duplicates": bool(merge_duplicates), "algorithm": algorithm,
            "max_iter": int(max_iter), "epochs": int(epochs),
        })
        self.n_threads = n_threads  # not in cfg: a setting of the running pipeline (see make_pke_dependency)

    def _gold_items(self, examples: Iterable[Example]):
        key = self.cfg["spans_key"]
        for eg in examples:
            ref = eg.reference
            if len(ref) == 0:
                continue
            if key not in ref.spans:
                raise ValueError(
                    f"[{self.name}] a training reference Doc has no doc.spans[{key!r}]: read the corpus "
                    "with spacy_adf.BunsetsuCorpus.v1 (KNP, CaboCha or CoNLL-U with BunsetuBILabel)"
                )
            spans = bunsetsu_group(ref, key)
            heads = spans.attrs.get("heads")
            if heads is None:
                heads = bunsetsu_heads(ref, key)
            heads = list(heads)
            sentences = head_sentences(heads)
            if len(sentences) > 1:  # several roots: one item per sentence, each checked on its own
                spans = list(spans)
                items = [(spans[s:e], sentence_heads(heads, s, e)) for s, e in sentences]
            else:
                items = [(spans, heads)]
            for sent_spans, sent_heads in items:
                if check_bunsetsu_heads(sent_heads) is not None:
                    self.cfg["stats"]["skipped_sentences"] = self.cfg["stats"].get("skipped_sentences", 0) + 1
                    continue
                yield ref, sent_spans, sent_heads

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   corpus: Optional[str] = None):
        """Train: gold parse decisions -> libsvm (or the primal trainer) -> the configured classifier.
        corpus: as `ADFTagger`'s (every Example of that reader, for a streamed training loop)."""
        cfg = self.cfg
        cfg["stats"] = {}
        examples = initialize_examples(get_examples, f"{self.name}.initialize", nlp, corpus)
        X, y = self.plain_model.examples(self._gold_items(examples), min_count=cfg["min_feature_count"])
        if X.shape[0] == 0:
            raise ValueError(f"[{self.name}] no training decisions: the examples need sentences with "
                             "three or more bunsetsu")
        svm_seconds = self.plain_model.train(X, y, degree=cfg["degree"], C=cfg["C"], **trainer_settings(cfg))
        sv = self.plain_model.support_vectors
        cfg["stats"].update({
            "n_decisions": int(X.shape[0]), "n_positive": int((y > 0).sum()),
            "n_features": len(self.plain_model.vocab), "n_sv": sv.n_sv if sv is not None else self.plain_model.primal.n_sv,
            "svm_seconds": svm_seconds,
        })
        cfg["stats"]["training"] = self.plain_model.train_stats
        self.set_classifier(cfg["classifier"])

    def _bunsetsu(self, doc: Doc):
        key = self.cfg["spans_key"]
        if key not in doc.spans:
            raise ValueError(
                f"[{self.name}] the Doc has no doc.spans[{key!r}] (bunsetsu). Put a bunsetsu chunker "
                f"before {self.name} (an adf_tagger with target 'spans:{key}', see "
                "configs/bunsetsu_ja_kwdlc.cfg) or read gold bunsetsu with spacy_adf.BunsetsuCorpus.v1"
            )
        with named_errors(self.name):
            return bunsetsu_group(doc, key)

    def _nothing_to_parse(self, doc: Doc) -> bool:
        """An empty Doc, or one of whitespace only without bunsetsu: its tree is empty."""
        if len(doc) == 0:
            return True
        key = self.cfg["spans_key"]
        if key in doc.spans and len(doc.spans[key]):
            return False
        return bool(doc.to_array(IS_SPACE).all())

    def predict(self, docs: Iterable[Doc]) -> List[List[int]]:
        """The bunsetsu heads of each Doc (-1 for each sentence's root) as a `ParsedHeads`."""
        self.require_trained()
        docs = list(docs)
        key = self.cfg["spans_key"]
        parse = [not self._nothing_to_parse(doc) for doc in docs]
        # the reader checks the spans (self._bunsetsu names a problem)
        items = [(doc, doc.spans[key] if key in doc.spans else self._bunsetsu(doc))
                 for doc, wanted in zip(docs, parse) if wanted]
        labels = None
        for vocab in {id(doc.vocab): doc.vocab for doc, _ in items}.values():
            # the label strings must be in every Doc's StringStore (the ids are the same)
            strings = vocab.strings
            labels = (strings.add(INTRA_LABEL), strings.add(ROOT_LABEL), strings.add(DEFAULT_LABEL))
        parsed = iter(self.plain_model.parse_docs(items, labels, on_bad=self._bunsetsu, recut=self._recut,
                                                  n_threads=self.n_threads) if items else ())
        heads = ParsedHeads()
        for wanted in parse:
            h, tree = next(parsed) if wanted else ([], None)
            heads.append(h)
            heads.trees.append(tree)
            heads.given.append(list(h))
        return heads

    def _recut(self, doc: Doc):
        """The Doc's bunsetsu spans (None: none), re-cut at sentence ends (`respect_sentence_ends`)."""
        key = self.cfg["spans_key"]
        if key not in doc.spans:
            return None
        with named_errors(self.name):
            respect_sentence_ends(doc, key)
        return doc.spans[key]

    def set_annotations(self, docs: Iterable[Doc], heads: List[List[int]]) -> None:
        """Store the heads in the span group's ``attrs["heads"]`` and set the token tree, one per
        sentence (unchanged heads from `predict` by one `Doc.from_array`)."""
        key = self.cfg["spans_key"]
        trees = heads if isinstance(heads, ParsedHeads) else None
        for k, (doc, h) in enumerate(zip(docs, heads)):
            if self._nothing_to_parse(doc):
                if key not in doc.spans:
                    doc.spans[key] = []
                doc.spans[key].attrs["heads"] = []  # an empty tree: no bunsetsu, no heads
                continue
            tree = trees.tree(k, h, len(doc)) if trees is not None else None
            if tree is not None:
                doc.from_array(TREE_ATTRS, tree)
                group = doc.spans[key]
                group.attrs["heads"] = list(h)
                group.attrs.pop("original_heads", None)
                continue
            sentences = head_sentences(h)
            set_bunsetsu_tree(doc, h, spans_key=key, sentences=sentences if len(sentences) > 1 else None)

    def _score_settings(self) -> Dict:
        return {"spans_key": self.cfg["spans_key"]}

    def _check_cfg(self, cfg: Dict) -> None:
        check_classifier_options(cfg["classifier"], cfg["degree"], cfg["sigma"], cfg["xi"], cfg["C"])
        check_trainer(cfg["trainer"], cfg["classifier"])
        check_groups(cfg["features"])
        check_algorithm(cfg["algorithm"])

    def _new_plain_model(self) -> BunsetsuParser:
        return BunsetsuParser(self.cfg["features"], algorithm=self.cfg["algorithm"])
