"""`adf_tagger`: a linear-chain CRF sequence labeller trained by ADF.

Targets entities, span groups (e.g. chunks) or a token attribute; see
`targets.py`. Trains inside `spacy train`: with `spacy_adf.ADF.v1` as the
optimizer the update is sparse (cost proportional to the features a batch
touches); any other thinc optimizer gets a dense gradient.
"""
import re
from typing import Callable, Dict, Iterable, List, Optional

import numpy
from spacy.attrs import LEMMA, MORPH, NORM, ORTH, POS, TAG
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..core.params import SparseGrad
from ..features.crf_layout import build_crf
from ..training.crf_pipe import CRFPipe
from ..ml.crf import featurize
from .targets import Target, make_target

# Token attributes every built-in template column is a function of: ORTH
# (words, lower case, shape, affixes, orthography class), NORM, TAG, POS,
# LEMMA and MORPH (morph_FIELD).
_SOURCE_ATTRS = [ORTH, NORM, TAG, POS, LEMMA, MORPH]
_BUILTIN_RE = re.compile(r"^(w|orth|lower|norm|shape|t|tag|pos|lemma|ortho|"
                         r"(prefix|suffix)\d+|morph_[A-Za-z0-9_]+)$")


def _source_attrs(tset, doc: Doc) -> Optional[numpy.ndarray]:
    """The Doc's source attributes, or None if a column comes from a
    registered extractor (then only the columns themselves identify it)."""
    builtin = getattr(tset, "_spacy_adf_builtin_only", None)
    if builtin is None:
        builtin = all(_BUILTIN_RE.match(name) for name in tset.columns)
        tset._spacy_adf_builtin_only = builtin
    return doc.to_array(_SOURCE_ATTRS) if builtin else None

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

if not Doc.has_extension("adf_marginals"):
    Doc.set_extension("adf_marginals", default=None)


@Language.factory(
    "adf_tagger",
    assigns=["doc.ents", "doc.spans", "token.tag", "token.pos"],
    default_config={
        "model": DEFAULT_CRF_MODEL,
        "target": "ents",
        "scheme": "BIO",
        "covering": False,
        "store_marginals": False,
        "scorer": {"@scorers": "spacy_adf.tagger_scorer.v1"},
    },
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
    """Create an adf_tagger.

    target: "ents", "spans:KEY", "tag", "pos" or "_.EXTENSION".
    scheme: "BIO" or "BILUO" tags for span targets.
    covering: for span groups ("spans:KEY") that cover every Doc (bunsetsu): no
        O tag, and the written spans always cover the Doc in order (the
        rule for stray tags is in targets.py).
    store_marginals: also compute per-token label marginals: they go to
        doc._.adf_marginals[name] (float32, n_tokens x n_tags, columns in
        the order of component.tag_names) and, for span groups, the minimum
        token marginal of each span to doc.spans[KEY].attrs["scores"].
    """
    return ADFTagger(nlp.vocab, model, name, target=target, scheme=scheme, covering=covering,
                     store_marginals=store_marginals, scorer=scorer)


class ADFTagger(CRFPipe):
    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "adf_tagger",
        *,
        target: str = "ents",
        scheme: str = "BIO",
        covering: bool = False,
        store_marginals: bool = False,
        scorer: Optional[Callable] = None,
    ):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.target: Target = make_target(target, scheme, covering)
        self.cfg = {
            "labels": [],
            "target": target,
            "scheme": scheme,
            "covering": bool(covering),
            "store_marginals": bool(store_marginals),
            "n_train_examples": 0,
        }
        self.scorer = scorer
        self._tag_index: Dict[str, int] = {}
        self._grad: Optional[SparseGrad] = None
        self._reset_training_state()

    # ------------------------------------------------------------ labels

    @property
    def tag_names(self) -> List[str]:
        """The CRF's output tags (e.g. O, B-NP, I-NP) in column order."""
        return self.target.tag_names(self.cfg["labels"])

    @property
    def n_tags(self) -> int:
        return len(self.tag_names)

    def _set_model(self, table, crf) -> None:
        self._tag_index = {t: i for i, t in enumerate(self.tag_names)}
        super()._set_model(table, crf)

    # ------------------------------------------------------------ initialize

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        labels: Optional[List[str]] = None,
    ) -> None:
        """Collect labels and build the feature dictionary from the corpus."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        examples = list(get_examples())
        if not examples:
            raise ValueError(f"[{self.name}] initialize() got no training examples")
        if nlp is not None:
            self._annotate_upstream(examples, nlp)
        self._init_labels(labels, (lab for eg in examples for lab in self.target.labels_in(eg)))
        if not self.cfg["labels"]:
            raise ValueError(
                f"[{self.name}] found no labels for target {self.target.spec!r} in the "
                "initialization examples; check the corpus and the target setting"
            )
        self._tag_index = {t: i for i, t in enumerate(self.tag_names)}
        tset = self.model.attrs["templates"]
        hash_mats, golds = [], []
        for eg in examples:
            if len(eg.predicted) == 0:
                continue
            gold = self._gold_ids(eg)
            if gold is None:
                continue
            tset.check_doc(eg.predicted, self.name)
            hash_mats.append(tset.hashes(eg.predicted))
            golds.append(gold)
        table, crf = build_crf(
            hash_mats, golds, len(self.tag_names),
            edge_template_mask=self.model.attrs["edge_mask"],
            min_freq=self.model.attrs["min_freq"],
            state_features=self.model.attrs["state_features"],
            edge_features=self.model.attrs["edge_features"],
        )
        self.cfg["n_train_examples"] = len(examples)
        self._set_model(table, crf)

    def _annotate_upstream(self, examples: List[Example], nlp: Language) -> None:
        """Run the components before this one on predicted Docs that lack an
        annotation the templates need, e.g. tags from a sourced, frozen POS
        tagger named in [training] annotating_components: nlp.update()
        annotates the predicted Docs that way, but spaCy hands initialize()
        the raw examples (and disables frozen components while it runs)."""
        needed = self.model.attrs["templates"].required_annotations
        if not needed:
            return
        upstream = []
        for name, proc in nlp.components:
            if name == self.name:
                break
            upstream.append(proc)
        if not upstream:
            return
        for eg in examples:
            doc = eg.predicted
            if len(doc) and not all(doc.has_annotation(a) for a in needed):
                for proc in upstream:
                    doc = proc(doc)
                eg.predicted = doc

    def _gold_ids(self, eg: Example) -> Optional[numpy.ndarray]:
        tags = self.target.gold(eg)
        if any(t is None for t in tags):
            return None  # documented: sequences with unlabelled tokens are skipped
        try:
            return numpy.array([self._tag_index[t] for t in tags], dtype=numpy.int32)
        except KeyError as e:
            raise ValueError(
                f"[{self.name}] gold tag {e.args[0]!r} was not seen at initialize "
                f"(known tags: {', '.join(self.tag_names)}). Initialize with a corpus "
                "that contains it, or pass labels=[...] to initialize()."
            ) from None

    # ------------------------------------------------------------ inference

    def predict(self, docs: Iterable[Doc]):
        docs = list(docs)
        self._require_model()
        self._sync()
        crf = self.crf
        ss, ptr, attrs = featurize(self.model, docs, self.name)
        labels = crf.viterbi(ss, ptr, attrs)
        marg = crf.marginals(ss, ptr, attrs) if self.cfg["store_marginals"] else None
        out = []
        for i in range(len(docs)):
            s, e = ss[i], ss[i + 1]
            out.append((labels[s:e], None if marg is None else marg[s:e]))
        return out

    def set_annotations(self, docs: Iterable[Doc], preds) -> None:
        names = self.tag_names
        for doc, (ids, marg) in zip(docs, preds):
            if len(doc) == 0:
                continue
            tags = [names[i] for i in ids]
            conf = None
            if marg is not None:
                conf = marg[numpy.arange(len(ids)), ids]
                if doc._.adf_marginals is None:
                    doc._.adf_marginals = {}
                doc._.adf_marginals[self.name] = marg
            self.target.set(doc, tags, conf)

    # ------------------------------------------------------------ training

    def _example_data(self, eg: Example):
        """(pos_ptr, attrs, gold) of one example, cached across epochs.

        spaCy keeps the same reference Docs for every epoch and copies the
        predicted ones, so the cache is keyed by the reference Doc and checked
        against the predicted Doc's attribute columns: a hit is exact.
        """
        tset = self.model.attrs["templates"]
        doc = eg.predicted
        key = id(eg.reference)
        tset.check_doc(doc, self.name)
        # What the features are computed from: the raw token attributes when
        # every column is a built-in function of them (cheap to compare),
        # else the feature columns themselves.
        source = _source_attrs(tset, doc)
        cols = tset.columns_for(doc) if source is None else None
        check = cols if source is None else source
        hit = self._cache.get(key)
        if hit is not None and hit[0] is eg.reference and numpy.array_equal(hit[1], check):
            return hit[2]
        gold = self._gold_ids(eg)
        if gold is None:
            return None
        if cols is None:
            cols = tset.columns_for(doc)
        ptr, attrs = self.model.attrs["table"].lookup(tset.hash_columns(cols))
        data = (ptr, attrs, gold)
        self._cache_put(key, (eg.reference, check, data))
        return data

    # ------------------------------------------------------------ scoring

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        validate_examples(examples, "ADFTagger.score")
        if self.scorer is None:
            return {}
        return self.scorer(examples, target=self.target, **kwargs)

    # ------------------------------------------------------------ serialization

    def __reduce__(self):
        # Pickles the trained model, not the optimizer's state or caches.
        self._sync()
        return (_rebuild_tagger, (self.vocab, self.model, self.name, dict(self.cfg), self.scorer))

    def _load_cfg(self, cfg: dict) -> None:
        for key in ("labels", "target", "scheme"):
            if key not in cfg:
                raise ValueError(f"[{self.name}] cfg is missing {key!r}: not an adf_tagger cfg")
        cfg = {"covering": False, **cfg}  # models saved before the setting existed
        keys = ("target", "scheme", "covering")
        if any(cfg[k] != self.cfg[k] for k in keys):
            saved = ", ".join(f"{k}={cfg[k]!r}" for k in keys)
            mine = ", ".join(f"{k}={self.cfg[k]!r}" for k in keys)
            raise ValueError(
                f"[{self.name}] the saved component has {saved}, but this one was created with {mine}"
            )
        self.cfg.update(cfg)
        self.target = make_target(self.cfg["target"], self.cfg["scheme"], self.cfg["covering"])


def _rebuild_tagger(vocab, model, name, cfg, scorer) -> ADFTagger:
    tagger = ADFTagger(vocab, model, name, target=cfg["target"], scheme=cfg["scheme"],
                       covering=cfg.get("covering", False), store_marginals=cfg["store_marginals"], scorer=scorer)
    tagger.cfg.update(cfg)
    if model.attrs["crf"] is not None:
        tagger._set_model(model.attrs["table"], model.attrs["crf"])
    return tagger
