"""`adf_tagger`: a linear-chain CRF sequence labeller trained by ADF (docs/training.md,
"`adf_tagger` settings")."""
import operator
import zlib
from itertools import takewhile
from typing import Callable, Dict, Iterable, List, Optional

import numpy
from spacy.attrs import IS_SPACE
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..features.cluster_tables import load_clusters, shared_table
from ..scorers.tagging import tagger_score
from ..serialization.payloads import dump_payload, load_payload
from ..training.example_cache import MISS
from ..training.sparse_trainer import SparseTrainer
from ..training.spacy_internals import set_score_weights
from .labels import LabelsInCfg, initial_labels
from .targets import Target, make_target
from .trainable import SparseTrainedPipe, initialize_examples

default_model_config = """
[model]
@architectures = "spacy_adf.CRF.v1"
min_freq = 1
state_features = "all"
edge_features = "observed"
edge_templates = null

[model.templates]
@misc = "spacy_adf.templates.words.v1"
"""
DEFAULT_CRF_MODEL = Config().from_str(default_model_config)["model"]

# the word cluster table of templates with cluster columns (a versioned payload)
CLUSTERS_FORMAT = "spacy_adf.word_clusters"
CLUSTERS_VERSION = 1

if not Doc.has_extension("adf_marginals"):
    Doc.set_extension("adf_marginals", default=None)


@Language.factory(
    "adf_tagger",
    assigns=["doc.ents", "doc.spans", "token.tag", "token.pos", "token.morph"],
    default_config={
        "model": DEFAULT_CRF_MODEL,
        "target": "ents",
        "scheme": "BIO",
        "covering": False,
        "store_marginals": False,
        "scorer": {"@scorers": "spacy_adf.tagger_scorer.v1"},
    },
    # the defaults of target "ents"; each instance reports its own target's
    default_score_weights={"ents_f": 1.0, "ents_p": 0.0, "ents_r": 0.0},
)
def make_adf_tagger(
    nlp: Language,
    name: str,
    model: Model,
    *,
    target: str,
    scheme: str,
    covering: bool,
    store_marginals: bool,
    scorer: Optional[Callable],
) -> "ADFTagger":
    """Create an adf_tagger (settings: docs/training.md, "`adf_tagger` settings")."""
    tagger = ADFTagger(nlp.vocab, model, name, target=target, scheme=scheme, covering=covering,
                       store_marginals=store_marginals, scorer=scorer)
    set_score_weights(nlp, name, tagger.target.score_weights)
    return tagger


class ADFTagger(LabelsInCfg, SparseTrainedPipe):
    """Labels tokens with a `SequenceCRF` and writes them to the target; the CRF's tags are the
    target's tag names for cfg["labels"]."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "adf_tagger", *, target: str = "ents",
                 scheme: str = "BIO", covering: bool = False, store_marginals: bool = False,
                 scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.plain_model.name = name
        self.target: Target = make_target(target, scheme, covering)
        self.cfg = {"labels": [], "target": target, "scheme": scheme, "covering": bool(covering),
                    "store_marginals": bool(store_marginals), "n_train_examples": 0}
        self.scorer = scorer
        self._tag_index: Dict[str, int] = {}
        self.trainer = SparseTrainer(name, self.plain_model, (model.id, "crf_weights"),
                                     self.training_samples, lambda: self.cfg["n_train_examples"])

    update_reads_examples_only = True  # update() changes neither Doc of an Example

    @property
    def tag_names(self) -> List[str]:
        """The CRF's output tags (e.g. O, B-NP, I-NP) in column order."""
        return self.target.tag_names(self.cfg["labels"])

    def _model_changed(self) -> None:
        self._tag_index = {t: i for i, t in enumerate(self.tag_names)}
        self.trainer.reset()

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   labels: Optional[List[str]] = None, corpus: Optional[str] = None,
                   clusters: Optional[str] = None, cluster_words: int = 0) -> None:
        """Collect labels and build the feature table in one pass over the examples, priming the
        trainer's cache with the first epoch's samples. corpus, clusters: docs/training.md."""
        if clusters is not None:
            if not self.plain_model.uses_clusters:
                raise ValueError(f"[{self.name}] initialize(clusters={clusters!r}): the feature templates read no "
                                 "word clusters (turn on the templates' clusters, or leave clusters null)")
            self._load_cluster_source(clusters, cluster_words, nlp.lang if nlp is not None else self.vocab.lang)
        elif self.plain_model.uses_clusters:
            self._induce_clusters(initialize_examples(get_examples, f"{self.name}.initialize", nlp, corpus))
        examples = initialize_examples(get_examples, f"{self.name}.initialize", nlp, corpus)
        upstream = self._upstream(nlp)
        needed = self.plain_model.required_annotations
        found: List[str] = []

        def pairs():
            # labels are collected as the model reads the gold tags: one pass
            for eg in examples:
                # spaCy hands initialize() raw examples: annotate what the templates need as nlp.update() does
                if upstream and len(eg.predicted) and not all(eg.predicted.has_annotation(a) for a in needed):
                    for proc in upstream:
                        eg.predicted = proc(eg.predicted)
                found.extend(self.target.labels_in(eg))
                yield eg.predicted, self._gold_tags(eg) if len(eg.predicted) else None

        read = self.plain_model.read_training(pairs())
        if not read.n_examples:
            raise ValueError(f"[{self.name}] initialize() got no training examples")
        self.cfg["labels"] = initial_labels(self.cfg["labels"], labels, found)
        if not self.cfg["labels"]:
            raise ValueError(
                f"[{self.name}] found no labels for target {self.target.spec!r} in the "
                "initialization examples; check the corpus and the target setting"
            )
        primed = self.plain_model.build_for_training(read, self.tag_names, self._unknown_tag)
        self.cfg["n_train_examples"] = read.n_examples
        self._model_changed()
        self.trainer.cache.prime(primed, read.n_examples)

    def _induce_clusters(self, examples: Iterable[Example]) -> None:
        """The word cluster table from the words of the training examples (a first pass)."""
        words = [[t.text for t in eg.predicted] for eg in examples]
        try:
            table = self.plain_model.induce_clusters(words)
        except ValueError as e:
            raise ValueError(f"[{self.name}] cannot induce the word clusters the templates read: {e}; "
                             "train on more text or remove the cluster templates") from None
        self.cfg["clusters"] = {"n_words": len(table), "checksum": _table_checksum(table)}

    def _load_cluster_source(self, source: str, max_words: int, lang: str) -> None:
        try:
            # the vocab is nlp's (spaCy's [initialize] vectors fill its vectors before this runs)
            table = load_clusters(source, lang, max_words, self.vocab)
        except ValueError as e:
            raise ValueError(f"[{self.name}] cannot read the word clusters: {e}") from None
        self.plain_model.set_clusters(table)
        self.cfg["clusters"] = {"n_words": len(table), "checksum": _table_checksum(table), "source": source}

    def _upstream(self, nlp: Optional[Language]) -> list:
        """The components before this one, if the templates need annotations."""
        if nlp is None or not self.plain_model.required_annotations:
            return []
        return [proc for _, proc in takewhile(lambda named: named[0] != self.name, nlp.components)]

    def _unknown_tag(self, tag: str) -> None:
        raise ValueError(
            f"[{self.name}] gold tag {tag!r} was not seen at initialize "
            f"(known tags: {', '.join(self.tag_names)}). Initialize with a corpus "
            "that contains it, or pass labels=[...] to initialize()."
        )

    def _gold_tags(self, eg: Example) -> Optional[List[str]]:
        """The gold tag of each predicted token, or None if one has none."""
        tags = self.target.gold(eg)
        return None if any(t is None for t in tags) else tags  # documented: such sequences are skipped

    def _gold_ids(self, eg: Example) -> Optional[numpy.ndarray]:
        tags = self._gold_tags(eg)
        if tags is None:
            return None
        try:
            return numpy.array([self._tag_index[t] for t in tags], dtype=numpy.int32)
        except KeyError as e:
            self._unknown_tag(e.args[0])

    def predict(self, docs: Iterable[Doc]):
        """Per Doc: (tag ids, marginals or None)."""
        return self.plain_model.predict(list(docs), marginals=self.cfg["store_marginals"])

    def set_annotations(self, docs: Iterable[Doc], preds) -> None:
        """Write the predicted tags to the target (and marginals if stored)."""
        names = self.tag_names
        for doc, (ids, marg) in zip(docs, preds):
            # no span over whitespace alone (the first token's test is the cheap one)
            if len(doc) == 0 or (self.target.is_spans and doc[0].is_space and doc.to_array(IS_SPACE).all()):
                self.target.set_empty(doc)
                continue
            conf = None
            if marg is not None:
                conf = marg[numpy.arange(len(ids)), ids]
                if doc._.adf_marginals is None:
                    doc._.adf_marginals = {}
                doc._.adf_marginals[self.name] = marg
            self.target.set(doc, [names[i] for i in numpy.asarray(ids).tolist()], conf)

    def training_samples(self, eg: Example) -> List[tuple]:
        """[(pos_ptr, attrs, gold[, values])] of one example (empty without complete gold), cached
        across epochs by reference Doc and a digest of the predicted Doc's token attributes."""
        if not len(eg.predicted):
            return []
        model = self.plain_model
        signature = model.training_signature(eg.predicted)
        samples = self.trainer.cache.get(eg, signature, operator.eq)
        if samples is MISS:
            gold = self._gold_ids(eg)
            if gold is None:
                samples = []
            else:
                samples = self.trainer.cache.take(model.training_key(signature, gold))
                if samples is MISS:
                    samples = [model.training_sample(eg.predicted, gold)]
            self.trainer.cache.put(eg, signature, samples)
        return model.expand_samples(samples)

    def _score_settings(self) -> Dict:
        return {"target": self.target}

    def pair_scorer(self, **kwargs) -> Optional[Callable[[List], Dict]]:
        """score() over (predicted, reference) `DocPair`s, or None unless the scorer is this
        package's, on a span target with spaCy's default span options."""
        if self.scorer is not tagger_score or not self.target.is_spans or not self.target.fast_scores(kwargs):
            return None
        return lambda pairs: tagger_score(pairs, target=self.target, **kwargs)

    def prediction_scorer(self, **kwargs) -> Optional[Callable[[List[Doc], list, List[Doc]], Dict]]:
        """f(docs, preds, references): score() of the docs as set_annotations would annotate them,
        without changing them. None where pair_scorer is None, and for "ents" targets."""
        if self.pair_scorer(**kwargs) is None or self.target.key is None:
            return None
        names = self.tag_names

        def score(docs, preds, references):
            tags = ([names[i] for i in numpy.asarray(ids).tolist()] for ids, _ in preds)
            return self.target.score_predictions(docs, tags, references)

        return score

    def _load_cfg(self, data: bytes) -> None:
        mine = {k: self.cfg[k] for k in ("target", "scheme", "covering")}
        self.cfg.update(self._saved_cfg(data, "adf_tagger", ["labels", *mine], mine))
        self.target = make_target(self.cfg["target"], self.cfg["scheme"], self.cfg["covering"])

    def _parts(self):
        parts = super()._parts()
        if not self.plain_model.uses_clusters:
            return parts
        return {"cfg": parts["cfg"], "clusters": (self._clusters_bytes, self._load_clusters),
                "model": parts["model"]}

    def _clusters_bytes(self) -> bytes:
        table = self.plain_model.clusters
        if table is None:
            raise ValueError(f"[{self.name}] the component has no cluster table: initialize it first")
        words = sorted(table)
        return dump_payload(CLUSTERS_FORMAT, CLUSTERS_VERSION, {"words": words, "paths": [table[w] for w in words]})

    def _load_clusters(self, data: bytes) -> None:
        _, content = load_payload(data, CLUSTERS_FORMAT, [CLUSTERS_VERSION])
        try:
            table = dict(zip(content["words"], content["paths"], strict=True))
        except (KeyError, TypeError, ValueError):
            raise ValueError("the cluster table is incomplete or corrupt") from None
        expected = self.cfg.get("clusters") or {}
        if expected.get("checksum") != _table_checksum(table):
            raise ValueError(
                f"[{self.name}] the cluster table ({len(table)} words) does not match the one the cfg "
                f"records ({expected.get('n_words')} words): model files and cfg do not belong together")
        self.plain_model.set_clusters(shared_table(table, expected["checksum"]))

    def _model_bytes(self):
        self.plain_model.require_built()
        return self.plain_model.to_chunks()

    def _load_model(self, data: bytes) -> None:
        self.plain_model.from_bytes(data, expected_labels=len(self.tag_names))
        self._model_changed()

    def _init_settings(self) -> Dict:
        return {k: self.cfg[k] for k in ("target", "scheme", "covering", "store_marginals")}


def _table_checksum(table: Dict[str, str]) -> str:
    text = "\n".join(f"{w}\t{table[w]}" for w in sorted(table))
    return f"crc32:{zlib.crc32(text.encode('utf8')):08x}"
