"""The thinc Model of the kernel components (`pke_dependency`,
`pke_tagger`, `pke_segmenter`): it carries the component's plain model
(``attrs[PLAIN_MODEL]``: a BunsetsuParser, KernelTagger or
BoundarySegmenter), so that ``self.model`` is a thinc Model in every
spacy-adf component, as spaCy expects of a pipe. Not a registered
architecture: the kernel components take their options in their own config
(no ``[model]`` block), and the component trains and runs the plain model
itself, never by backprop."""
from thinc.api import Model

from . import PLAIN_MODEL


def kernel_model(component: str, plain) -> Model:
    """A thinc Model named after the component kind, carrying `plain`."""
    return Model(f"spacy_adf_{component}", _forward, attrs={PLAIN_MODEL: plain})


def _forward(model: Model, docs, is_train: bool):
    raise NotImplementedError(
        f"{model.name} is trained and run by its component (pke_dependency, pke_tagger or pke_segmenter), "
        "not through thinc"
    )
