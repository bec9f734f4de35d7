"""The segmenting tokenizers `spacy_adf.Segmenter.v1` (a trained adf_segmenter; docs/components.md,
"Word segmentation") and `spacy_adf.KernelSegmenter.v1` (a trained pke_segmenter; "Kernel
taggers"): raw text to word Docs with no character Doc in between (`text_word_docs`). The file is a
msgpack map {"format", "segmenter": the component's bytes, or None before training}. A subclass
sets the class attributes and makes `self.component` (an untrained component).
"""
import warnings
from pathlib import Path
from typing import Dict, Iterable, Iterator, Optional, Tuple, Union

import srsly
from spacy.scorer import Scorer
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import minibatch, registry
from spacy.vocab import Vocab

from ..ml.segmenter_crf import build_segmenter_model
from ..models.char_segmenter import CharSegmenter
from ..pipeline.kernel_segmenter import KernelSegmenter
from ..pipeline.segmenter import ADFSegmenter, text_word_docs
from ..scorers.segmentation import make_segmentation_scorer
from ..serialization.parts import ADVICE, PartLoadError, describe

FILE_NAME = "segmenter"


class SegmentingTokenizer:
    registered_name = ""  # e.g. "spacy_adf.Segmenter.v1", in messages
    file_format = ""  # the "format" field of the tokenizer file
    component_factory = ""  # the component whose trained model it takes, in messages
    component_class: type = object  # that component's class
    component_files: Tuple[str, ...] = ()  # the files that make a folder that component's own

    def __init__(self, vocab: Vocab, component):
        self.vocab = vocab
        self.component = component

    @classmethod
    def of_nlp(cls, nlp) -> "SegmentingTokenizer":
        return cls(nlp.vocab)

    @property
    def is_trained(self) -> bool:
        return self.component.is_trained

    def initialize(self, get_examples=None, *, nlp=None, segmenter_model: Optional[Union[str, Path]] = None,
                   pkuseg_model=None, pkuseg_user_dict=None) -> None:
        """Load the model of a trained component from `segmenter_model` (`load_segmenter`), or keep
        the one loaded. pkuseg_model and pkuseg_user_dict (spacy.blank("zh")'s) are ignored."""
        if segmenter_model is None:
            if not self.is_trained:
                raise ValueError(f"{self.registered_name} needs [initialize.tokenizer] segmenter_model: "
                                 f"the path of a trained pipeline with a {self.component_factory} component")
        elif self.is_trained and not Path(segmenter_model).exists():
            # a saved or packaged pipeline re-initialized elsewhere: its config
            # still names the training-time path; keep the loaded model
            warnings.warn(f"{self.registered_name}: {segmenter_model} does not exist; "
                          "keeping the segmenter model already loaded")
        else:
            self.load_segmenter(segmenter_model)

    def load_segmenter(self, path: Union[str, Path]) -> None:
        """Take the model of a trained component from its own folder, or a pipeline folder's."""
        path = Path(path)
        if not path.exists():
            raise ValueError(f"{self.registered_name}: segmenter model {path} does not exist")
        if all((path / name).exists() for name in self.component_files):
            self.component.from_disk(path)
            return
        import spacy

        nlp = spacy.load(path)
        found = [pipe for _, pipe in nlp.pipeline if isinstance(pipe, self.component_class) and pipe.is_trained]
        if isinstance(nlp.tokenizer, type(self)) and nlp.tokenizer.is_trained:
            found.append(nlp.tokenizer.component)
        if not found:
            raise ValueError(f"{self.registered_name}: the pipeline at {path} has no trained {self.component_factory}")
        self.from_segmenter(found[0])

    def from_segmenter(self, segmenter) -> "SegmentingTokenizer":
        """Take over (a copy of) a trained component's model."""
        if not isinstance(segmenter, self.component_class):
            raise ValueError(f"{self.registered_name}: expected a component of factory '{self.component_factory}', "
                             f"got {type(segmenter).__name__}")
        if not segmenter.is_trained:
            raise ValueError(f"{self.registered_name}: the {self.component_factory} is not trained")
        self.component.from_bytes(segmenter.to_bytes())
        return self

    def __call__(self, text: str) -> Doc:
        return next(self.pipe([text]))

    def pipe(self, texts: Iterable[str], batch_size: int = 1000) -> Iterator[Doc]:
        """Segment in batches: one featurization and one C call each."""
        for batch in minibatch(texts, size=batch_size):
            for text in batch:
                if not isinstance(text, str):
                    raise TypeError(f"the tokenizer takes a str, got {type(text).__name__}")
            if not self.is_trained:
                raise ValueError(
                    f"{self.registered_name} has no model: set [initialize.tokenizer] "
                    f"segmenter_model to a trained {self.component_factory} pipeline and run "
                    "nlp.initialize(), or load a saved pipeline"
                )
            yield from text_word_docs(self.vocab, batch, self.component.plain_model.segment)

    def score(self, examples: Iterable[Example], **kwargs) -> Dict[str, float]:
        """spaCy's tokenizer scores (token_acc, token_p/r/f) and the component's own."""
        examples = list(examples)
        return {**Scorer.score_tokenization(examples), **self.component.score(examples, **kwargs)}

    def to_bytes(self, *, exclude=tuple(), **kwargs) -> bytes:
        data = self.component.to_bytes() if self.is_trained else None
        return srsly.msgpack_dumps({"format": self.file_format, "segmenter": data})

    def from_bytes(self, data: bytes, *, exclude=tuple(), **kwargs):
        return self._load(data, "the tokenizer data")

    def to_disk(self, path: Union[str, Path], *, exclude=tuple(), **kwargs) -> None:
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)
        (path / FILE_NAME).write_bytes(self.to_bytes())

    def from_disk(self, path: Union[str, Path], *, exclude=tuple(), **kwargs):
        path = Path(path)
        if not (path / FILE_NAME).exists():
            raise ValueError(f"{self.registered_name}: missing {path / FILE_NAME}: incomplete "
                             "pipeline directory; re-download or re-save the pipeline")
        try:
            data = (path / FILE_NAME).read_bytes()
        except OSError as e:
            raise ValueError(f"{self.registered_name}: cannot read {path / FILE_NAME}: {e}") from None
        return self._load(data, str(path / FILE_NAME))

    def _load(self, data: bytes, where: str):
        """Load the tokenizer file, checked field by field (the model's bytes check themselves)."""
        name = self.registered_name

        def fail(reason: str) -> ValueError:
            return ValueError(f"{name}: cannot load {where}: {reason}. {ADVICE}")

        try:
            msg = srsly.msgpack_loads(data)
        except Exception as e:  # msgpack raises several types on garbage input
            raise fail(f"unreadable ({describe(e)})") from None
        if not isinstance(msg, dict) or msg.get("format") != self.file_format:
            raise fail(f"not a {name} tokenizer file")
        if set(msg) != {"format", "segmenter"} or not isinstance(msg["segmenter"], (bytes, type(None))):
            raise fail("unexpected fields")
        if msg["segmenter"] is not None:
            try:
                self.component.from_bytes(msg["segmenter"])
            except PartLoadError as e:  # names the part and says what to do
                raise ValueError(f"{name}: cannot load {where}: {e}") from None
            except Exception as e:
                raise fail(describe(e)) from None
        return self


class SegmenterTokenizer(SegmentingTokenizer):
    registered_name = "spacy_adf.Segmenter.v1"
    file_format = "spacy_adf.Segmenter"
    component_factory = "adf_segmenter"
    component_class = ADFSegmenter
    component_files = ("cfg", "model")

    def __init__(self, vocab: Vocab):
        super().__init__(vocab, ADFSegmenter(vocab, build_segmenter_model(), name="segmenter_tokenizer",
                                             scorer=make_segmentation_scorer()))

    def initialize(self, get_examples=None, *, nlp=None, segmenter_model: Optional[Union[str, Path]] = None,
                   user_dict: Optional[Union[str, Path]] = None, pkuseg_model=None, pkuseg_user_dict=None) -> None:
        """SegmentingTokenizer.initialize, then the words of `user_dict` (one a line) as user words."""
        super().initialize(segmenter_model=segmenter_model)
        if user_dict is not None:
            self.component.load_user_dict(user_dict)

    def from_segmenter(self, segmenter) -> "SegmenterTokenizer":
        """Take over (a copy of) a trained adf_segmenter's model, or a CharSegmenter."""
        if not isinstance(segmenter, CharSegmenter):
            return super().from_segmenter(segmenter)
        segmenter.crf.require_built()
        self.component.from_bytes(segmenter.to_bytes())
        return self


@registry.tokenizers(SegmenterTokenizer.registered_name)
def create_segmenter_tokenizer():
    return SegmenterTokenizer.of_nlp


# a table of the component's names, as SegmenterTokenizer's: SegmentingTokenizer does the work
class KernelSegmenterTokenizer(SegmentingTokenizer):
    registered_name = "spacy_adf.KernelSegmenter.v1"
    file_format = "spacy_adf.KernelSegmenter"
    component_factory = "pke_segmenter"
    component_class = KernelSegmenter
    component_files = ("cfg", "features", "classifier")  # of a saved pke_segmenter folder

    def __init__(self, vocab: Vocab):
        super().__init__(vocab, KernelSegmenter(vocab, name="pke_segmenter_tokenizer"))


@registry.tokenizers(KernelSegmenterTokenizer.registered_name)
def create_kernel_segmenter_tokenizer():
    return KernelSegmenterTokenizer.of_nlp
