"""`__call__` and `pipe` of every spacy-adf component, errors routed through spaCy's error
handler as `TrainablePipe` does, and `score` by the configured scorer."""
from contextlib import contextmanager
from typing import Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Type, Union

from spacy import util
from spacy.tokens import Doc
from spacy.training import Example, validate_examples


class HandledCalls:
    """Mixin before spaCy's Pipe / TrainablePipe in a component's bases."""

    name: str

    def process_batch(self, docs: List[Doc]) -> List[Doc]:
        """The processed Docs of a batch (the same Docs, annotated in place)."""
        self.set_annotations(docs, self.predict(docs))
        return docs

    def __call__(self, doc: Doc) -> Doc:
        error_handler = self.get_error_handler()
        try:
            return self.process_batch([doc])[0]
        except Exception as e:
            error_handler(self.name, self, [doc], e)

    def pipe(self, stream: Iterable[Doc], *, batch_size: int = 128) -> Iterator[Doc]:
        """Process Docs ``batch_size`` at a time; a batch that raises goes to the error handler."""
        error_handler = self.get_error_handler()
        for docs in util.minibatch(stream, size=batch_size):
            try:
                out = self.process_batch(docs)
            except Exception as e:
                error_handler(self.name, self, docs, e)
                continue
            yield from out


@contextmanager
def named_errors(name: str, errors: Union[Type[Exception], Tuple[Type[Exception], ...]] = ValueError) -> Iterator[None]:
    """Re-raise `errors` as a ValueError whose message starts with "[name] " (once)."""
    try:
        yield
    except errors as e:
        text, prefix = str(e), f"[{name}] "
        raise ValueError(text if text.startswith(prefix) else prefix + text) from None


class ScoredByScorer:
    """score() of a component with a ``scorer`` setting (None: no scores)."""

    scorer: Optional[Callable]

    def _score_settings(self) -> Dict:
        """What the scorer gets from the component unless the caller passes it."""
        return {}

    def score(self, examples: Iterable[Example], **kwargs) -> Dict:
        examples = list(examples)
        validate_examples(examples, f"{type(self).__name__}.score")
        if self.scorer is None:
            return {}
        return self.scorer(examples, **{**self._score_settings(), **kwargs})
