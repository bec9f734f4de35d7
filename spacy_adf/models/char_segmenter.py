"""The character segmenter behind `adf_segmenter` and the
`spacy_adf.Segmenter.v1` tokenizer: a character featurizer with its lexicon
(training words, user words) and a linear-chain CRF over word-boundary tags;
units in, word-start flags out (`segment`). Its parts "cfg", "lexicon" and
"model" are the component's files (docs/architecture.md, "adf_segmenter")."""
import zlib
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Set, Tuple, Union

import numpy
import srsly
from spacy.attrs import IDX, IS_SPACE, LENGTH, ORTH, SPACY
from spacy.tokens import Doc

from ..features.char_units import DEFAULT_UNIT_RULES, apply_unit_rules, check_unit_rules, doc_units
from ..features.chars import CharFeaturizer
from ..features.crf_layout import check_feature_modes
from ..features.row_buffer import RowBuffer
from ..serialization.parts import SerializedParts
from ..serialization.payloads import dump_payload, load_payload
from ..serialization.text_lines import check_file, read_lines
from ..tags.bmes import SCHEMES, check_scheme, decode_starts, encode
from .boundary_segmenter import concat_units
from .char_segmenter_decode import SegmentScratch, segment_starts
from .linear_crf import LinearChainCRF

USER_WORD_MODES = ("force", "features")
LEXICON_FORMAT = "spacy_adf.segmenter_lexicon"
LEXICON_VERSION = 1
# (codes, run bounds, gold tag ids or None, lexicon fold) of a training example
TrainingItem = Tuple[numpy.ndarray, numpy.ndarray, Optional[numpy.ndarray], int]


def check_segmenter_options(options: Dict) -> None:
    check_feature_modes(options["state_features"], options["edge_features"], options["min_freq"])
    folds = options["lexicon_folds"]
    if not isinstance(folds, int) or folds < 0:
        raise ValueError(f"lexicon_folds must be an integer >= 0, got {folds!r}")
    make_featurizer(options)  # validates the word lengths


def make_featurizer(options: Dict) -> CharFeaturizer:
    return CharFeaturizer(options["min_word"], options["max_word"], options["word_features"],
                          bool(options.get("char_trigrams", False)))


def _words(doc: Doc) -> List[str]:
    """The texts of a Doc's non-space tokens (string lookups, no Token objects)."""
    strings = doc.vocab.strings
    arr = doc.to_array([ORTH, IS_SPACE])
    return [strings[int(orth)] for orth, space in arr.tolist() if not space]


def _text_length(arr: numpy.ndarray) -> int:
    """Characters of a Doc's text from its (IDX, LENGTH, ..., SPACY) array."""
    return int(arr[-1, 0] + arr[-1, 1] + arr[-1, 3]) if len(arr) else 0


def gold_boundaries(name: str, predicted: Doc, reference: Doc
                    ) -> Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, numpy.ndarray]:
    """(codes, bounds) of the predicted Doc's units and whether each starts, ends a reference word
    (every run starts and ends one); ValueError if the two texts differ."""
    codes, tok_index, bounds = doc_units(predicted)
    r = reference.to_array([IDX, LENGTH, IS_SPACE, SPACY]).astype(numpy.int64)
    p = predicted.to_array([IDX, LENGTH, IS_SPACE, SPACY]).astype(numpy.int64)
    if _text_length(r) != _text_length(p):
        raise ValueError(
            f"[{name}] reference and predicted texts differ: {reference.text[:40]!r} vs "
            f"{predicted.text[:40]!r}; build the examples with nlp.make_doc(reference.text)"
        )
    r = r[r[:, 2] == 0]
    p = p[tok_index]
    starts = numpy.isin(p[:, 0], r[:, 0])
    ends = numpy.isin(p[:, 0] + p[:, 1], r[:, 0] + r[:, 1])
    starts[bounds[:-1]] = True
    ends[bounds[1:] - 1] = True
    return codes, bounds, starts, ends


def matchable(words: Iterable[str]) -> List[str]:
    """Words that can match a run: a gold word with whitespace inside never does."""
    return [w for w in words if w and not any(ch.isspace() for ch in w)]


def read_user_dict(path: Union[str, Path]) -> List[str]:
    """The words of a user dictionary (docs/components.md, "Word segmentation"): a
    file without a word, or with a NUL character (UTF-16 read as UTF-8), is an error."""
    words = []
    path = check_file(path, "user dictionary", hint="")
    for lineno, line in read_lines(path):
        if "\x00" in line:
            raise ValueError(f"{path}, line {lineno}: a NUL character; a user dictionary is UTF-8 text with one "
                             "word a line (is the file UTF-16?)")
        parts = line.strip().split()
        if parts:
            words.append(parts[0])
    if not words:
        raise ValueError(f"user dictionary file {str(path)!r} has no words: give one word a line")
    return words


class CharSegmenter(SerializedParts):
    def __init__(self, options: Dict, *, scheme: str = "BMES", user_words: str = "force",
                 name: str = "adf_segmenter") -> None:
        self.name = name
        self.crf = LinearChainCRF(name)  # what the trainer trains
        check_segmenter_options(options)
        self.cfg: Dict = {"scheme": "BMES", "user_words": "force", "features": dict(options),
                          "unit_rules": DEFAULT_UNIT_RULES, "n_train_examples": 0, "n_train_sequences": 0}
        self.configure(scheme, user_words)
        self.featurizer = make_featurizer(options)
        self.train_words: Set[str] = set()
        self.user_words: Set[str] = set()

    def configure(self, scheme: str, user_words: str) -> None:
        check_scheme(scheme)
        if user_words not in USER_WORD_MODES:
            raise ValueError(f"user_words must be one of {USER_WORD_MODES}, got {user_words!r}")
        self.cfg.update({"scheme": scheme, "user_words": user_words})

    @property
    def is_built(self) -> bool:
        return self.crf.is_built

    @property
    def options(self) -> Dict:
        return self.cfg["features"]

    @property
    def tag_names(self) -> List[str]:
        return list(SCHEMES[self.cfg["scheme"]])

    def add_words(self, words: Iterable[str]) -> int:
        """Add user-dictionary words (whitespace-free); returns how many can match."""
        words = [w.strip() for w in words if w and w.strip()]
        for w in words:
            if any(ch.isspace() for ch in w):
                raise ValueError(f"[{self.name}] user word {w!r} contains whitespace")
        self.user_words.update(words)
        if self.cfg["user_words"] == "force":
            for w in words:
                self.featurizer.add_forced_word(w)
        return self.featurizer.add_words(words, -1)

    def load_user_dict(self, path: Union[str, Path]) -> int:
        return self.add_words(read_user_dict(path))

    def training_item(self, predicted: Doc, reference: Doc) -> TrainingItem:
        """The `TrainingItem` of one example: the units of the predicted Doc,
        tagged by the reference's words. ValueError if the two texts differ."""
        codes, bounds, starts, ends = gold_boundaries(self.name, predicted, reference)
        folds = self.options["lexicon_folds"]  # the example's lexicon fold, by its words: stable across runs
        fold = zlib.crc32(reference.to_array(ORTH).tobytes()) % folds if folds > 1 else -1
        if not len(codes):
            return codes, bounds, None, fold
        return codes, bounds, encode(starts, ends, self.cfg["scheme"]), fold

    def training_samples(self, item: TrainingItem) -> List[tuple]:
        """The samples of a `training_item`, (pos_ptr, attrs, gold) per run ([] without gold)."""
        codes, bounds, gold, fold = item
        if gold is None:
            return []
        ptr, attrs = self.crf.lookup(self.featurizer.hashes(codes, bounds, fold))
        return _runs(ptr, attrs, gold, bounds)

    def build_for_training(self, pairs: Iterable[Tuple[Doc, Doc]], user_dict: Optional[Union[str, Path]] = None
                           ) -> Tuple[int, List[TrainingItem], List[List[tuple]]]:
        """Build the lexicon and the CRF from (predicted, reference) pairs read
        once as a stream; returns (number of non-empty examples, the items
        with gold, their first epoch's samples)."""
        words_by_example, items = [], []
        long_word = False
        for predicted, reference in pairs:
            if not len(predicted):
                continue
            words = _words(reference)
            long_word = long_word or any(len(w) > 1 for w in words)
            item = self.training_item(predicted, reference)
            words_by_example.append((words, item[3]))
            items.append(item)
        if not items:
            raise ValueError(f"[{self.name}] initialize() got no non-empty training examples")
        if not long_word:
            # e.g. nlp.initialize() without get_examples: spaCy's dummy example
            raise ValueError(
                f"[{self.name}] initialize() needs segmented training examples (reference Docs "
                "whose words are the gold segmentation), but got none with a word of two or "
                "more characters. Pass get_examples to nlp.initialize() (spacy train does), or "
                "load a trained pipeline instead of initializing one."
            )
        self.build_lexicon(words_by_example)
        del words_by_example
        if user_dict is not None:
            self.load_user_dict(user_dict)
        n_examples = len(items)
        sequences = [item for item in items if item[2] is not None and len(item[0])]
        del items
        return n_examples, sequences, self.build_crf_with_samples(sequences, n_examples)

    def build_lexicon(self, words_by_example: Sequence[Tuple[List[str], int]]) -> None:
        """A new lexicon of training words: (words, fold) per example."""
        self.featurizer = make_featurizer(self.options)
        self.train_words, self.user_words = set(), set()
        for words, fold in words_by_example:
            self.train_words.update(words)
            self.featurizer.add_words(matchable(words), fold)

    def lexicon_folds(self) -> Dict[str, int]:
        """word -> training fold of every lexicon word (-1: every fold); files keep only
        the words, so training a loaded copy restores them with set_lexicon_folds."""
        return dict(self.featurizer.fold_of)

    def set_lexicon_folds(self, fold_of: Dict[str, int]) -> None:
        """A lexicon of the same words with the given folds; user words stay."""
        user = sorted(self.user_words)
        self.featurizer = make_featurizer(self.options)
        for word, fold in fold_of.items():
            self.featurizer.add_word(word, fold)
        self.user_words = set()
        self.add_words(user)

    def _hash_sequences(self, sequences) -> Tuple[list, list, int]:
        """(hash rows, gold tag arrays, number of CRF sequences) of training items."""
        hash_mats, golds = RowBuffer(self.featurizer.n_templates), []
        n_seq = 0
        for codes, bounds, gold, fold in sequences:
            hash_mats.append(self.featurizer.hashes(codes, bounds, fold))
            golds.append(gold)
            n_seq += len(bounds) - 1
        if not golds:
            raise ValueError(f"[{self.name}] the training examples contain no characters to segment")
        return hash_mats, golds, n_seq

    def build_crf_with_samples(self, sequences: List[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray, int]],
                               n_examples: int) -> List[List[tuple]]:
        """Feature table and zero weights from training items with non-empty
        codes (after build_lexicon), and each item's samples (`training_samples`') from the same hashes."""
        hash_mats, golds, n_seq = self._hash_sequences(sequences)
        # the build sees each example as one sequence; runs inside an example
        # are separate CRF sequences in training and inference, which only
        # changes which label pairs are "observed" at run starts (none).
        opts = self.options
        whole = self.crf.build_with_samples(
            hash_mats, golds, len(self.tag_names),
            edge_template_mask=numpy.ones(self.featurizer.n_templates, dtype=bool),
            min_freq=opts["min_freq"], state_features=opts["state_features"],
            edge_features=opts["edge_features"])
        self.cfg["n_train_examples"] = int(n_examples)
        self.cfg["n_train_sequences"] = n_seq
        return [_runs(ptr, attrs, gold, seq[1]) for (ptr, attrs, gold), seq in zip(whole, sequences)]

    def segment_units(self, units: Sequence[Tuple[numpy.ndarray, numpy.ndarray, numpy.ndarray]]
                      ) -> List[numpy.ndarray]:
        """Word-start flags for each (codes, _, bounds), in one CRF batch."""
        codes, bounds, offsets = concat_units([(c, b) for c, _, b in units])
        if not len(codes):
            return [numpy.zeros(0, bool) for _ in units]
        starts = self.segment(codes, bounds)
        return [starts[offsets[i]:offsets[i + 1]] for i in range(len(units))]

    def segment(self, codes: numpy.ndarray, bounds: numpy.ndarray) -> numpy.ndarray:
        """Word-start flags (bool) of units cut into CRF sequences at bounds."""
        self.crf.require_built()
        if self.featurizer.max_forced:
            return self.segment_reference(codes, bounds)
        scratch = self.__dict__.get("_scratch")
        if scratch is None:
            scratch = self._scratch = SegmentScratch()
        crf = self.crf
        return segment_starts(self.featurizer, crf.table, crf.params, crf.ctx, scratch, codes, bounds,
                              len(SCHEMES[self.cfg["scheme"]]), self.cfg["unit_rules"] == "graphemes").view(bool)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_scratch"}  # buffers are not state

    def segment_reference(self, codes: numpy.ndarray, bounds: numpy.ndarray) -> numpy.ndarray:
        """`segment` step by step in numpy: the C path's reference, and the path
        with forced user words (only the stretches between them are labelled)."""
        self.crf.require_built()
        n = len(codes)
        if not n:
            return numpy.zeros(0, bool)
        featurizer = self.featurizer
        force_start = force_inside = left = None
        if featurizer.max_forced:
            force_start, force_inside = (a.view(bool) for a in featurizer.forced_boundaries(codes, bounds))
            covered = force_inside.copy()
            covered[:-1] |= force_start[:-1] & force_inside[1:]
            left = numpy.flatnonzero(~covered)
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
            ptr, attrs = self.crf.lookup(hashes)
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
        apply_unit_rules(starts, codes, bounds, self.cfg["unit_rules"])
        starts[bounds[:-1]] = True
        return starts

    def _parts(self):
        # the model's file: the CRF's Chunks, written piece by piece (see framed.Chunks)
        return {"cfg": (lambda: srsly.json_dumps(self.cfg, indent=2).encode("utf8"), self._load_cfg),
                "lexicon": (self._lexicon_bytes, self._load_lexicon),
                "model": (self.crf.to_chunks, self._load_model)}

    def _load_cfg(self, data: bytes) -> None:
        cfg = srsly.json_loads(data)
        for key in ("scheme", "features", "unit_rules"):
            if key not in cfg:
                raise ValueError(f"[{self.name}] cfg is missing {key!r}: not an adf_segmenter cfg")
        check_scheme(cfg["scheme"])
        if cfg.get("user_words", "force") not in USER_WORD_MODES:
            raise ValueError(f"[{self.name}] cfg has an unknown user_words mode {cfg.get('user_words')!r}")
        check_segmenter_options(cfg["features"])
        check_unit_rules(cfg["unit_rules"])
        # The saved feature options win over the config's: they define the model.
        self.cfg.update(cfg)

    def _lexicon_bytes(self) -> bytes:
        """The training and user words (a versioned payload)."""
        return dump_payload(LEXICON_FORMAT, LEXICON_VERSION,
                            {"train": sorted(self.train_words), "user": sorted(self.user_words)})

    def _load_lexicon(self, data: bytes) -> None:
        _, msg = load_payload(data, LEXICON_FORMAT, [LEXICON_VERSION])
        if not isinstance(msg, dict) or "train" not in msg or "user" not in msg:
            raise ValueError(f"[{self.name}] the lexicon file is not an adf_segmenter lexicon")
        for key in ("train", "user"):
            if not isinstance(msg[key], list) or not all(isinstance(w, str) for w in msg[key]):
                raise ValueError(f"[{self.name}] the lexicon's {key!r} words are not a list of strings")
        self.featurizer = make_featurizer(self.options)
        self.featurizer.add_words(matchable(msg["train"]), -1)
        self.train_words = set(msg["train"])
        self.user_words = set()
        self.add_words(msg["user"])

    def _load_model(self, data: bytes) -> None:
        self.crf.from_bytes(data, expected_labels=len(self.tag_names))


def _runs(ptr: numpy.ndarray, attrs: numpy.ndarray, gold: numpy.ndarray, bounds: numpy.ndarray) -> List[tuple]:
    """An example's (pos_ptr, attrs, gold) cut into one sample per run."""
    out = []
    for s, e in zip(bounds[:-1].tolist(), bounds[1:].tolist()):
        if e > s:
            out.append((ptr[s:e + 1] - ptr[s], attrs[ptr[s]:ptr[e]], gold[s:e]))
    return out
