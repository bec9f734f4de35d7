"""`adf_segmenter`: word segmentation with a character CRF trained by ADF, on a character Doc
(docs/components.md, "Word segmentation")."""
import operator
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Union

import numpy
from spacy.attrs import IDX, LENGTH, ORTH, SPACY, intify_attr
from spacy.language import Language
from spacy.tokens import Doc
from spacy.training import Example
from spacy.vocab import Vocab
from thinc.api import Config, Model

from ..features.char_units import cached_by_orth, doc_units
from ..features.chars import texts_to_units, words_from_starts
from ..features.digest import digest
from ..training.example_cache import MISS
from ..training.sparse_trainer import SparseTrainer
from .trainable import SparseTrainedPipe, initialize_examples

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


# spaCy's component registration, explicit per component (as textcat.py's): spaCy validates configs by it
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
    """Create an adf_segmenter (docs/components.md, "Word segmentation")."""
    return ADFSegmenter(nlp.vocab, model, name, scheme=scheme, user_words=user_words,
                        scorer=scorer)


def _content_key(codes: numpy.ndarray, bounds: numpy.ndarray, gold: numpy.ndarray, fold: int) -> tuple:
    """Everything an example's training samples depend on (for a fixed lexicon and feature table)."""
    return (digest(codes), digest(bounds), digest(gold), int(fold))


# Annotations other than the tokens themselves that a word Doc built anew would drop.
_KEPT_ANNOTATIONS = ("TAG", "POS", "MORPH", "LEMMA", "DEP", "ENT_IOB", "SENT_START")  # SENT_START last


_KEPT_ATTRS = [intify_attr(a) for a in _KEPT_ANNOTATIONS]


def _annotated(doc: Doc) -> bool:
    if doc.spans:
        return True
    # one pass over the tokens rules out the common case, a Doc with none of
    # them (the first token's sentence start is always set); spaCy's own
    # checks decide otherwise
    values = doc.to_array(_KEPT_ATTRS)
    if not (values[:, :-1].any() or values[1:, -1].any()):
        return False
    return any(doc.has_annotation(a) for a in _KEPT_ANNOTATIONS)


_STRING_CACHE = {}  # orth -> token string


def _merged_doc(doc: Doc, tok_index: numpy.ndarray, starts: numpy.ndarray) -> Doc:
    """A new Doc of the predicted words (unit i is token tok_index[i], starts[i]: a word starts
    there); tokens that are not units (whitespace) stay, the text and user_data are kept."""
    n = len(doc)
    if n == 0:
        return doc
    new_token = numpy.ones(n, bool)  # does token i start an output token?
    new_token[tok_index[~starts]] = False
    arr = doc.to_array([IDX, LENGTH, SPACY]).astype(numpy.int64)
    first = numpy.flatnonzero(new_token)
    last = numpy.append(first[1:], n) - 1
    # doc.text from the token strings and trailing spaces, without a Token object per token
    pieces = cached_by_orth(_STRING_CACHE, doc.to_array(ORTH).tolist(), doc.vocab.strings.__getitem__)
    for k in numpy.flatnonzero(arr[:, 2]).tolist():
        pieces[k] += " "
    text = "".join(pieces)
    begin, end = arr[first, 0], arr[last, 0] + arr[last, 1]
    words = [text[a:b] for a, b in zip(begin.tolist(), end.tolist())]
    out = Doc(doc.vocab, words=words, spaces=(arr[last, 2] != 0).tolist())
    out.user_data.update(doc.user_data)
    return out


def merge_words(docs: Iterable[Doc], preds) -> None:
    """Merge each predicted word's characters into one token, in place (preds: as `predict`'s)."""
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


def word_docs(docs: List[Doc], preds) -> List[Doc]:
    """The word Docs of character Docs: built anew, or merged in place if a Doc is `_annotated`."""
    out = []
    for doc, (tok_index, starts) in zip(docs, preds):
        if _annotated(doc):
            merge_words([doc], [(tok_index, starts)])
            out.append(doc)
        else:
            out.append(_merged_doc(doc, tok_index, starts))
    return out


def text_word_docs(vocab: Vocab, texts: List[str], segment: Callable) -> Iterator[Doc]:
    """Word Docs straight from raw texts, their word starts from one ``segment(codes, bounds)``."""
    codes, pos, bounds, offsets = texts_to_units(texts)
    starts = segment(codes, bounds).view(numpy.uint8)
    for k, text in enumerate(texts):
        a, z = offsets[k], offsets[k + 1]
        words, spaces = words_from_starts(text, pos[a:z], starts[a:z], codes[a:z], vocab)
        yield Doc(vocab, words=words, spaces=spaces)


_PLAIN_CHECK = [ORTH] + [intify_attr(a) for a in ("LENGTH", "SPACY", "IS_SPACE")] + _KEPT_ATTRS


def _plain_char_text(doc: Doc) -> Optional[str]:
    """The text of a Doc exactly as CharTokenizer makes it of a text without whitespace, with no
    annotation; None for any other Doc."""
    if not len(doc) or doc.spans:
        return None
    values = doc.to_array(_PLAIN_CHECK)
    values[:, 1] -= 1  # LENGTH - 1, SPACY, IS_SPACE, the kept annotations and (after
    values[0, -1] = 0  # the first token) the sentence starts: all 0 in a plain Doc
    if values[:, 1:].any():
        return None
    return "".join(cached_by_orth(_STRING_CACHE, values[:, 0].tolist(), doc.vocab.strings.__getitem__))


def segment_docs(docs: List[Doc], predict: Callable, segment: Callable) -> List[Doc]:
    """The word Docs of a batch of character Docs: a `_plain_char_text` Doc from its text as the
    tokenizer forms do (`text_word_docs`, half the work), the others by ``predict(docs)`` and
    `word_docs`; user_data is kept."""
    texts = [_plain_char_text(doc) for doc in docs]
    out: List[Optional[Doc]] = [None] * len(docs)
    plain = [k for k, text in enumerate(texts) if text is not None]
    if plain:
        made = text_word_docs(docs[0].vocab, [texts[k] for k in plain], segment)
        for k, word_doc in zip(plain, made):
            word_doc.user_data.update(docs[k].user_data)
            out[k] = word_doc
    if len(plain) < len(docs):
        rest = [k for k, text in enumerate(texts) if text is None]
        rest_docs = [docs[k] for k in rest]
        for k, word_doc in zip(rest, word_docs(rest_docs, predict(rest_docs))):
            out[k] = word_doc
    return out


class WordDocsFromUnits:
    """process_batch and set_annotations of the segmenter components: __call__ and pipe return
    new word Docs (`segment_docs`, linear; spaCy's retokenizer is quadratic over a long Doc);
    set_annotations merges in place (`merge_words`)."""

    def process_batch(self, docs: List[Doc]) -> List[Doc]:
        self.require_trained()
        return segment_docs(docs, self.predict, self.plain_model.segment)

    def set_annotations(self, docs: Iterable[Doc], preds) -> None:
        merge_words(docs, preds)


class ADFSegmenter(WordDocsFromUnits, SparseTrainedPipe):
    """Segments a character Doc into words with a CharSegmenter, whose parts are its files."""

    def __init__(self, vocab: Vocab, model: Model, name: str = "adf_segmenter", *, scheme: str = "BMES",
                 user_words: str = "force", scorer: Optional[Callable] = None):
        self.vocab = vocab
        self.model = model
        self.name = name
        self.scorer = scorer
        self.plain_model.name = self.plain_model.crf.name = name
        self.plain_model.configure(scheme, user_words)
        self.cfg = self.plain_model.cfg  # one dict: the component's cfg file is the model's
        # the lexicon's folds are not saved: a copy that trains restores them (distributed)
        self.trainer = SparseTrainer(name, self.plain_model.crf, (model.id, "crf_weights"),
                                     self.training_samples,
                                     lambda: self.cfg["n_train_sequences"] or self.cfg["n_train_examples"],
                                     preparation=(lambda: self.plain_model.lexicon_folds(),
                                                  lambda folds: self.plain_model.set_lexicon_folds(folds)))

    update_reads_examples_only = True  # update() changes neither Doc of an Example

    @property
    def tag_names(self) -> List[str]:
        return self.plain_model.tag_names

    @property
    def labels(self):
        return tuple(self.tag_names)

    def add_label(self, label: str) -> int:
        raise ValueError(f"[{self.name}] has fixed word-boundary tags ({self.cfg['scheme']}); "
                         "it takes no labels")

    def add_words(self, words: Iterable[str]) -> int:
        """Add user-dictionary words; returns how many can match (`CharSegmenter.add_words`)."""
        return self.plain_model.add_words(words)

    def load_user_dict(self, path: Union[str, Path]) -> int:
        """Add the words of a user dictionary file (`models.char_segmenter.read_user_dict`)."""
        return self.plain_model.load_user_dict(path)

    def initialize(self, get_examples: Callable[[], Iterable[Example]], *, nlp: Optional[Language] = None,
                   user_dict: Optional[Union[str, Path]] = None, corpus: Optional[str] = None) -> None:
        """Build the lexicon (training words and `user_dict`) and the feature table in one pass,
        priming the trainer's cache with the first epoch's samples. corpus: as `ADFTagger`'s."""
        examples = initialize_examples(get_examples, f"{self.name}.initialize", nlp, corpus)
        n_examples, sequences, samples = self.plain_model.build_for_training(
            ((eg.predicted, eg.reference) for eg in examples), user_dict)
        self.trainer.reset()
        primed = {}
        for item, runs in zip(sequences, samples):
            primed.setdefault(_content_key(*item), runs)
        self.trainer.cache.prime(primed, n_examples)

    def predict(self, docs: Iterable[Doc]):
        """Per Doc: (token index of each unit, bool word-start flag per unit)."""
        self.require_trained()
        units = [doc_units(doc) for doc in docs]
        starts = self.plain_model.segment_units(units)
        return [(u[1], s) for u, s in zip(units, starts)]

    @property
    def is_trained(self) -> bool:
        return self.plain_model.is_built

    def require_trained(self) -> None:
        self.plain_model.crf.require_built()

    def training_samples(self, eg: Example) -> List[tuple]:
        """One (pos_ptr, attrs, gold) per run of the example, cached across epochs."""
        if not len(eg.predicted):
            return []
        orths = digest(eg.predicted.to_array(ORTH))
        samples = self.trainer.cache.get(eg, orths, operator.eq)
        if samples is MISS:
            item = self.plain_model.training_item(eg.predicted, eg.reference)
            samples = [] if item[2] is None else self.trainer.cache.take(_content_key(*item))
            if samples is MISS:
                samples = self.plain_model.training_samples(item)
            self.trainer.cache.put(eg, orths, samples)
        return samples

    def _score_settings(self) -> Dict:
        # word P/R/F with OOV/IV recall against the training words
        return {"lexicon": self.plain_model.train_words or None}

    def _parts(self):
        parts = self.plain_model._parts()
        load_model = parts["model"][1]

        def load(data: bytes) -> None:
            load_model(data)
            self.trainer.reset()

        parts["model"] = (parts["model"][0], load)
        return parts

    def _init_settings(self) -> Dict:
        return {"scheme": self.cfg["scheme"], "user_words": self.cfg["user_words"]}
