"""`spacy_adf.Segmenter.v1`: a tokenizer that segments Chinese or Japanese
text into words with a trained adf_segmenter model, building the word Doc
straight from the text (no character Doc, no retokenization).

    [nlp.tokenizer]
    @tokenizers = "spacy_adf.Segmenter.v1"

    [initialize.tokenizer]
    segmenter_model = "training/seg_zh/model-best"   # a pipeline or component dir
    user_dict = null                                 # optional, one word per line

The model is saved with the pipeline (`tokenizer/segmenter`), in the same
format as the adf_segmenter component. Whitespace is handled exactly as by
`spacy_adf.CharTokenizer.v1`, so the text is preserved and the Doc equals the
one the component produces.
"""
import warnings
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Union

import numpy
import srsly
from spacy.tokens import Doc
from spacy.util import registry
from spacy.vocab import Vocab

from ..features.chars import texts_to_units, words_from_starts
from ..ml.segmenter_crf import build_segmenter_model
from ..models.char_segmenter import CharSegmenter
from ..serialization.parts import ADVICE, PartLoadError, describe

FILE_NAME = "segmenter"


class SegmenterTokenizer:
    def __init__(self, vocab: Vocab):
        self.vocab = vocab
        self.segmenter: CharSegmenter = build_segmenter_model().attrs["segmenter"]
        self.segmenter.name = self.segmenter.crf.name = "segmenter_tokenizer"

    @property
    def is_trained(self) -> bool:
        return self.segmenter.is_built

    def _require_model(self) -> None:
        if not self.is_trained:
            raise ValueError(
                "spacy_adf.Segmenter.v1 has no model: set [initialize.tokenizer] "
                "segmenter_model to a trained adf_segmenter pipeline and run "
                "nlp.initialize(), or load a saved pipeline"
            )

    def __call__(self, text: str) -> Doc:
        if not isinstance(text, str):
            raise TypeError(f"the tokenizer takes a str, got {type(text).__name__}")
        self._require_model()
        return next(self._pipe_batch([text]))

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        """Segment in batches: one featurization and one Viterbi call each."""
        self._require_model()
        batch: List[str] = []
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"the tokenizer takes str, got {type(text).__name__}")
            batch.append(text)
            if len(batch) >= batch_size:
                yield from self._pipe_batch(batch)
                batch = []
        if batch:
            yield from self._pipe_batch(batch)

    def _pipe_batch(self, texts: List[str]) -> Iterator[Doc]:
        codes, pos, bounds, offsets = texts_to_units(texts)
        starts = self.segmenter.segment(codes, bounds).view(numpy.uint8)
        vocab = self.vocab
        for k, text in enumerate(texts):
            a, z = offsets[k], offsets[k + 1]
            words, spaces = words_from_starts(text, pos[a:z], starts[a:z])
            yield Doc(vocab, words=words, spaces=spaces)

    # ------------------------------------------------------------ setup

    def initialize(self, get_examples=None, *, nlp=None,
                   segmenter_model: Optional[Union[str, Path]] = None,
                   user_dict: Optional[Union[str, Path]] = None,
                   pkuseg_model=None, pkuseg_user_dict=None) -> None:
        """Load the model of a trained adf_segmenter: `segmenter_model` is a
        pipeline directory that contains one, or the component's own
        directory (with cfg, lexicon, model). pkuseg_model and
        pkuseg_user_dict, which spacy.blank("zh") puts in
        [initialize.tokenizer] for its default tokenizer, are ignored."""
        if segmenter_model is None:
            if not self.is_trained:
                raise ValueError(
                    "spacy_adf.Segmenter.v1 needs [initialize.tokenizer] segmenter_model: "
                    "the path of a trained pipeline with an adf_segmenter component"
                )
        elif self.is_trained and not Path(segmenter_model).exists():
            # a saved or packaged pipeline re-initialized elsewhere: its config
            # still names the training-time path; keep the loaded model
            warnings.warn(f"spacy_adf.Segmenter.v1: {segmenter_model} does not exist; "
                          "keeping the segmenter model already loaded")
        else:
            self.load_segmenter(segmenter_model)
        if user_dict is not None:
            self.segmenter.load_user_dict(user_dict)

    def load_segmenter(self, path: Union[str, Path]) -> None:
        path = Path(path)
        if not path.exists():
            raise ValueError(f"segmenter model {path} does not exist")
        if (path / "cfg").exists() and (path / "model").exists():
            self.segmenter.from_disk(path)
            return
        import spacy

        nlp = spacy.load(path)
        found = [pipe.segmenter for _, pipe in nlp.pipeline
                 if isinstance(getattr(pipe, "segmenter", None), CharSegmenter) and pipe.segmenter.is_built]
        if isinstance(nlp.tokenizer, SegmenterTokenizer) and nlp.tokenizer.is_trained:
            found.append(nlp.tokenizer.segmenter)
        if not found:
            raise ValueError(f"the pipeline at {path} has no trained adf_segmenter")
        self.from_segmenter(found[0])

    def from_segmenter(self, segmenter) -> "SegmenterTokenizer":
        """Take over (a copy of) a trained segmenter model: an adf_segmenter
        component or its CharSegmenter."""
        model = getattr(segmenter, "segmenter", segmenter)
        if not isinstance(model, CharSegmenter):
            raise ValueError(f"expected an adf_segmenter or a CharSegmenter, got {type(segmenter).__name__}")
        model.crf.require_built()
        self.segmenter.from_bytes(model.to_bytes())
        return self

    # ------------------------------------------------------------ serialization

    def to_bytes(self, *, exclude=tuple(), **kwargs) -> bytes:
        data = self.segmenter.to_bytes() if self.is_trained else None
        return srsly.msgpack_dumps({"format": "spacy_adf.Segmenter", "segmenter": data})

    def from_bytes(self, data: bytes, *, exclude=tuple(), **kwargs) -> "SegmenterTokenizer":
        return self._load(data, "the tokenizer data")

    def to_disk(self, path: Union[str, Path], *, exclude=tuple(), **kwargs) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / FILE_NAME).write_bytes(self.to_bytes())

    def from_disk(self, path: Union[str, Path], *, exclude=tuple(), **kwargs) -> "SegmenterTokenizer":
        path = Path(path)
        if not (path / FILE_NAME).exists():
            raise ValueError(f"spacy_adf.Segmenter.v1: missing {path / FILE_NAME}: incomplete "
                             "pipeline directory; re-download or re-save the pipeline")
        try:
            data = (path / FILE_NAME).read_bytes()
        except OSError as e:
            raise ValueError(f"spacy_adf.Segmenter.v1: cannot read {path / FILE_NAME}: {e}") from None
        return self._load(data, str(path / FILE_NAME))

    def _load(self, data: bytes, where: str) -> "SegmenterTokenizer":
        """Load the tokenizer file: a msgpack map {"format", "segmenter": the
        segmenter's bytes or None}. The segmenter's bytes carry its cfg
        checksum and part frames (SerializedParts); the map around them is
        checked field by field."""
        def fail(reason: str) -> ValueError:
            return ValueError(f"spacy_adf.Segmenter.v1: cannot load {where}: {reason}. {ADVICE}")

        try:
            msg = srsly.msgpack_loads(data)
        except Exception as e:  # msgpack raises several types on garbage input
            raise fail(f"unreadable ({describe(e)})") from None
        if not isinstance(msg, dict) or msg.get("format") != "spacy_adf.Segmenter":
            raise fail("not a spacy_adf.Segmenter.v1 tokenizer file")
        if set(msg) != {"format", "segmenter"} or not isinstance(msg["segmenter"], (bytes, type(None))):
            raise fail("unexpected fields")
        if msg["segmenter"] is not None:
            try:
                self.segmenter.from_bytes(msg["segmenter"])
            except PartLoadError as e:  # names the part and says what to do
                raise ValueError(f"spacy_adf.Segmenter.v1: cannot load {where}: {e}") from None
            except Exception as e:
                raise fail(describe(e)) from None
        return self


@registry.tokenizers("spacy_adf.Segmenter.v1")
def create_segmenter_tokenizer():
    def make(nlp):
        return SegmenterTokenizer(nlp.vocab)

    return make
