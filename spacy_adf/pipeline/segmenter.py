"""`adf_segmenter`: Chinese / Japanese word segmentation with a character CRF
trained by ADF.

It runs on a character-tokenized Doc (`spacy_adf.CharTokenizer.v1`), labels
every unit with a word-boundary tag and merges each word's characters with
`doc.retokenize()`. The same trained model also runs as a tokenizer
(`spacy_adf.Segmenter.v1`, see `tokenizers/segmenter.py`), which builds the
word Doc straight from the text.

Lexicon: the training words, plus user words (`initialize(user_dict=...)`,
`add_words()`, `load_user_dict()`), feed the dictionary features; user words
steer the segmentation of terms the training data never showed.
"""
import zlib
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Optional, Set, Union

import numpy
import srsly
from spacy.attrs import IDX, IS_SPACE, LENGTH, ORTH, SPACY
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example, validate_examples, validate_get_examples
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..features.char_units import doc_units
from ..features.crf_layout import build_crf
from ..training.crf_pipe import CRFPipe
from ..ml.segmenter_crf import check_segmenter_options, make_featurizer
from ..tags.bmes import SCHEMES, check_scheme, decode_starts, encode

default_model_config = """
[model]
@architectures = "spacy_adf.SegmenterCRF.v1"
min_word = 2
max_word = 6
word_features = true
lexicon_folds = 10
min_freq = 1
state_features = "all"
edge_features = "observed"
"""
DEFAULT_SEGMENTER_MODEL = Config().from_str(default_model_config)["model"]


@Language.factory(
    "adf_segmenter",
    assigns=["token.text"],
    default_config={
        "model": DEFAULT_SEGMENTER_MODEL,
        "scheme": "BMES",
        "user_words": "force",
        "scorer": {"@scorers": "spacy_adf.segmentation_scorer.v1"},
    },
    default_score_weights={"token_f": 1.0, "token_p": 0.0, "token_r": 0.0,
                           "oov_recall": None, "iv_recall": None, "oov_rate": None},
)
def make_adf_segmenter(
    nlp: Language, name: str, model: Model, *, scheme: str, user_words: str,
    scorer: Optional[Callable]
) -> "ADFSegmenter":
    """Create an adf_segmenter. Put it first in the pipeline, after a
    character tokenizer.

    scheme: word-boundary tags, "BMES" or "BI".
    user_words: what user-dictionary words do. "force": they feed the
        dictionary features and are kept whole wherever forward and backward
        longest matching with the user words agree (the CRF decides where
        they disagree); "features": they only feed the dictionary features.
    """
    return ADFSegmenter(nlp.vocab, model, name, scheme=scheme, user_words=user_words,
                        scorer=scorer)


USER_WORD_MODES = ("force", "features")


def read_user_dict(path: Union[str, Path]) -> List[str]:
    """One word per line (UTF-8); blank lines and surrounding whitespace are
    ignored; anything after the first space or tab on a line (a frequency or
    tag, as in jieba / pkuseg dictionaries) is ignored too."""
    path = Path(path)
    if not path.exists():
        raise ValueError(f"user dictionary {path} does not exist")
    try:
        lines = path.read_text(encoding="utf8").splitlines()
    except UnicodeDecodeError as e:
        raise ValueError(f"user dictionary {path} is not UTF-8 text: {e}") from None
    words = []
    for line in lines:
        parts = line.strip().split()
        if parts:
            words.append(parts[0])
    return words


def _doc_key(doc: Doc) -> bytes:
    """A reference Doc's fold key: its word hashes (stable across runs)."""
    return doc.to_array(ORTH).tobytes()


def example_fold(key: bytes, folds: int) -> int:
    """The lexicon fold of a training example: stable across runs and epochs."""
    if folds <= 1:
        return -1
    return zlib.crc32(key) % folds


def _matchable(words: Iterable[str]) -> List[str]:
    """Words that can match a run: a gold word with whitespace inside never does."""
    return [w for w in words if w and not any(ch.isspace() for ch in w)]


def _text_length(arr: numpy.ndarray) -> int:
    """Characters of a Doc's text from its (IDX, LENGTH, ..., SPACY) array."""
    return int(arr[-1, 0] + arr[-1, 1] + arr[-1, 3]) if len(arr) else 0


class ADFSegmenter(CRFPipe):
    def __init__(
        self,
        vocab: Vocab,
        model: Model,
        name: str = "adf_segmenter",
        *,
        scheme: str = "BMES",
        user_words: str = "force",
        scorer: Optional[Callable] = None,
    ):
        check_scheme(scheme)
        if user_words not in USER_WORD_MODES:
            raise ValueError(f"user_words must be one of {USER_WORD_MODES}, got {user_words!r}")
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.cfg = {
            "scheme": scheme,
            "user_words": user_words,
            "features": dict(model.attrs["options"]),
            "n_train_examples": 0,
            "n_train_sequences": 0,
        }
        self._train_words: Set[str] = set()
        self._user_words: Set[str] = set()
        self._grad = None
        self._reset_training_state()

    # ------------------------------------------------------------ model parts

    @property
    def n_tags(self) -> int:
        return len(SCHEMES[self.cfg["scheme"]])

    @property
    def tag_names(self) -> List[str]:
        return list(SCHEMES[self.cfg["scheme"]])

    @property
    def labels(self):
        return tuple(self.tag_names)

    @property
    def featurizer(self):
        return self.model.attrs["featurizer"]

    @property
    def training_words(self) -> Set[str]:
        """Words of the training corpus (the lexicon OOV recall is measured against)."""
        return set(self._train_words)

    @property
    def user_words(self) -> Set[str]:
        return set(self._user_words)

    def add_label(self, label: str) -> int:
        raise ValueError(f"[{self.name}] has fixed word-boundary tags ({self.cfg['scheme']}); "
                         "it takes no labels")

    def add_words(self, words: Iterable[str]) -> int:
        """Add user-dictionary words (visible to every sentence). Returns how
        many can match (lengths min_word..max_word); whitespace-free words only."""
        words = [w.strip() for w in words if w and w.strip()]
        for w in words:
            if any(ch.isspace() for ch in w):
                raise ValueError(f"[{self.name}] user word {w!r} contains whitespace")
        self._user_words.update(words)
        if self.cfg["user_words"] == "force":
            for w in words:
                self.featurizer.add_forced_word(w)
        return self.featurizer.add_words(words, -1)

    def load_user_dict(self, path: Union[str, Path]) -> int:
        return self.add_words(read_user_dict(path))

    # ------------------------------------------------------------ initialize

    def initialize(
        self,
        get_examples: Callable[[], Iterable[Example]],
        *,
        nlp: Optional[Language] = None,
        user_dict: Optional[Union[str, Path]] = None,
    ) -> None:
        """Build the lexicon (training words, plus the optional user
        dictionary file) and the feature dictionary from the corpus."""
        validate_get_examples(get_examples, f"{self.name}.initialize")
        examples = [eg for eg in get_examples() if len(eg.predicted)]
        if not examples:
            raise ValueError(f"[{self.name}] initialize() got no non-empty training examples")
        options = self.model.attrs["options"]
        folds = options["lexicon_folds"]
        featurizer = make_featurizer(options)
        self.model.attrs["featurizer"] = featurizer
        self._train_words = set()
        self._user_words = set()
        for eg in examples:
            fold = example_fold(_doc_key(eg.reference), folds)
            words = [t.text for t in eg.reference if not t.is_space]
            self._train_words.update(words)
            featurizer.add_words(_matchable(words), fold)
        if user_dict is not None:
            self.load_user_dict(user_dict)
        hash_mats, golds = [], []
        n_seq = 0
        for eg in examples:
            codes, _, bounds, gold = self._units_and_gold(eg)
            if gold is None or not len(codes):
                continue
            fold = example_fold(_doc_key(eg.reference), folds)
            hash_mats.append(featurizer.hashes(codes, bounds, fold))
            golds.append(gold)
            n_seq += len(bounds) - 1
        if not hash_mats:
            raise ValueError(f"[{self.name}] the training examples contain no characters to segment")
        table, crf = build_crf(
            hash_mats, golds, self.n_tags,
            edge_template_mask=numpy.ones(featurizer.n_templates, dtype=bool),
            min_freq=options["min_freq"],
            state_features=options["state_features"],
            edge_features=options["edge_features"],
        )
        # build_crf sees each example as one sequence; runs inside an example
        # are separate CRF sequences in training and inference, which only
        # changes which label pairs are "observed" at run starts (none).
        self.cfg["features"] = dict(options)
        self.cfg["n_train_examples"] = len(examples)
        self.cfg["n_train_sequences"] = n_seq
        self._set_model(table, crf)

    def _units_and_gold(self, eg: Example):
        """Units of the predicted Doc, their run bounds and gold tag ids (or
        None if the reference does not cover the same text)."""
        doc = eg.predicted
        codes, tok_index, bounds = doc_units(doc)
        ref = eg.reference
        r = ref.to_array([IDX, LENGTH, IS_SPACE, SPACY]).astype(numpy.int64)
        p = doc.to_array([IDX, LENGTH, IS_SPACE, SPACY]).astype(numpy.int64)
        if _text_length(r) != _text_length(p):
            raise ValueError(
                f"[{self.name}] reference and predicted texts differ: {ref.text[:40]!r} vs "
                f"{doc.text[:40]!r}; build the examples with nlp.make_doc(reference.text)"
            )
        if not len(codes):
            return codes, tok_index, bounds, None
        r = r[r[:, 2] == 0]
        p = p[tok_index]
        starts = numpy.isin(p[:, 0], r[:, 0])
        ends = numpy.isin(p[:, 0] + p[:, 1], r[:, 0] + r[:, 1])
        starts[bounds[:-1]] = True
        ends[bounds[1:] - 1] = True
        return codes, tok_index, bounds, encode(starts, ends, self.cfg["scheme"])

    # ------------------------------------------------------------ inference

    def predict(self, docs: Iterable[Doc]):
        """Per Doc: (token index of each unit, bool word-start flag per unit)."""
        docs = list(docs)
        self._require_model()
        self._sync()
        units = [doc_units(doc) for doc in docs]
        starts = self._segment_units(units)
        return [(u[1], s) for u, s in zip(units, starts)]

    def _segment_units(self, units) -> List[numpy.ndarray]:
        """Word-start flags for each (codes, _, bounds) in one CRF batch."""
        sizes = [len(u[0]) for u in units]
        total = sum(sizes)
        if total == 0:
            return [numpy.zeros(0, bool) for _ in units]
        codes = numpy.concatenate([u[0] for u in units])
        offsets = numpy.concatenate([[0], numpy.cumsum(sizes)])
        bounds = numpy.unique(numpy.concatenate(
            [u[2] + off for u, off in zip(units, offsets[:-1])] + [[total]]))
        starts = self._segment_codes(codes, bounds)
        return [starts[offsets[i]:offsets[i + 1]] for i in range(len(units))]

    def _segment_codes(self, codes: numpy.ndarray, bounds: numpy.ndarray) -> numpy.ndarray:
        """Word-start flags (bool) of units cut into CRF sequences at bounds.

        Units inside forced user words skip the CRF: only the stretches
        between them are labelled (their features still see the full run)."""
        n = len(codes)
        if not n:
            return numpy.zeros(0, bool)
        featurizer = self.featurizer
        force_start = force_inside = None
        if featurizer.max_forced:
            force_start, force_inside = (a.view(bool) for a in featurizer.forced_boundaries(codes, bounds))
            covered = force_inside.copy()
            covered[:-1] |= force_start[:-1] & force_inside[1:]
            left = numpy.flatnonzero(~covered)
        else:
            left = None
        if left is None or len(left) == n:
            hashes = featurizer.hashes(codes, bounds)
            seq_bounds, rows = bounds, None
        else:
            mask = numpy.zeros(n, numpy.uint8)
            mask[left] = 1
            hashes = featurizer.hashes(codes, bounds, mask=mask)[left]
            piece = numpy.ones(len(left), bool)
            if len(left):
                run_start = numpy.zeros(n + 1, bool)
                run_start[bounds] = True
                piece[1:] = (numpy.diff(left) != 1) | run_start[left[1:]]
            seq_bounds = numpy.append(numpy.flatnonzero(piece), len(left)).astype(numpy.int64)
            rows = left
        starts = numpy.zeros(n, bool)
        if hashes.shape[0]:
            ptr, attrs = self.model.attrs["table"].lookup(hashes)
            del hashes
            tags = self.crf.viterbi(seq_bounds, ptr, attrs)
            decoded = decode_starts(tags, self.cfg["scheme"])
            decoded[seq_bounds[:-1]] = True
            if rows is None:
                starts = decoded
            else:
                starts[rows] = decoded
        if force_start is not None:
            starts |= force_start
            starts &= ~force_inside
        starts[bounds[:-1]] = True
        return starts

    def set_annotations(self, docs: Iterable[Doc], preds) -> None:
        for doc, (tok_index, starts) in zip(docs, preds):
            if len(tok_index) == 0:
                continue
            first = numpy.flatnonzero(starts)
            last = numpy.append(first[1:], len(starts)) - 1
            a = tok_index[first]
            b = tok_index[last] + 1
            multi = numpy.flatnonzero(b - a > 1)
            if not len(multi):
                continue
            with doc.retokenize() as retokenizer:
                for k in multi.tolist():
                    retokenizer.merge(doc[int(a[k]):int(b[k])])

    # ------------------------------------------------------------ training

    def _example_sequences(self, eg: Example) -> List[tuple]:
        """One (pos_ptr, attrs, gold) per run of the example, cached across
        epochs (keyed by the reference Doc, checked against the text)."""
        key = id(eg.reference)
        doc = eg.predicted
        orths = doc.to_array(ORTH)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is eg.reference and numpy.array_equal(hit[1], orths):
            return hit[2]
        codes, _, bounds, gold = self._units_and_gold(eg)
        seqs = []
        if gold is not None:
            fold = example_fold(_doc_key(eg.reference), self.cfg["features"]["lexicon_folds"])
            ptr, attrs = self.model.attrs["table"].lookup(self.featurizer.hashes(codes, bounds, fold))
            for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
                if e > s:
                    p = ptr[s:e + 1] - ptr[s]
                    seqs.append((p, attrs[ptr[s]:ptr[e]], gold[s:e]))
        self._cache_put(key, (eg.reference, orths, seqs))
        return seqs

    # ------------------------------------------------------------ scoring

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        examples = list(examples)
        validate_examples(examples, "ADFSegmenter.score")
        if self.scorer is None:
            return {}
        return self.scorer(examples, lexicon=self._train_words or None, **kwargs)

    # ------------------------------------------------------------ serialization

    def __reduce__(self):
        # Pickles the trained model, not the optimizer's state or caches.
        data = self.to_bytes() if self.crf is not None else None
        return (_rebuild_segmenter, (self.vocab, self.model, self.name, self.cfg["scheme"],
                                     data, self.scorer))

    def _lexicon_bytes(self) -> bytes:
        return srsly.msgpack_dumps({"train": sorted(self._train_words),
                                    "user": sorted(self._user_words)})

    def _load_lexicon_bytes(self, data: bytes) -> None:
        msg = srsly.msgpack_loads(data)
        if not isinstance(msg, dict) or "train" not in msg or "user" not in msg:
            raise ValueError(f"[{self.name}] the lexicon file is not an adf_segmenter lexicon")
        featurizer = make_featurizer(self.cfg["features"])
        featurizer.add_words(_matchable(msg["train"]), -1)
        self.model.attrs["featurizer"] = featurizer
        self._train_words = set(msg["train"])
        self._user_words = set()
        self.add_words(msg["user"])

    def _extra_parts(self):
        return {"lexicon": (self._lexicon_bytes, self._load_lexicon_bytes)}

    def _load_cfg(self, cfg: dict) -> None:
        for key in ("scheme", "features"):
            if key not in cfg:
                raise ValueError(f"[{self.name}] cfg is missing {key!r}: not an adf_segmenter cfg")
        check_scheme(cfg["scheme"])
        if cfg.get("user_words", "force") not in USER_WORD_MODES:
            raise ValueError(f"[{self.name}] cfg has an unknown user_words mode {cfg.get('user_words')!r}")
        check_segmenter_options(cfg["features"])
        # The saved feature options win over the config's: they define the model.
        self.cfg.update(cfg)
        self.model.attrs["options"] = dict(cfg["features"])


def _rebuild_segmenter(vocab, model, name, scheme, data, scorer) -> ADFSegmenter:
    seg = ADFSegmenter(vocab, model, name, scheme=scheme, scorer=scorer)  # cfg comes with data
    if data is not None:
        seg.from_bytes(data)
    return seg
