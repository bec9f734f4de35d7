"""The thinc Models of spacy-adf's components, each carrying the component's plain model (trained
and run by the component, never by thinc) in ``attrs[PLAIN_MODEL]``."""
from functools import partial
from typing import Callable, Optional

from thinc.api import Model

PLAIN_MODEL = "plain_model"


def carrier(name: str, plain, component: str, predict: Optional[Callable] = None) -> Model:
    """The thinc Model `name` carrying `plain`: ``model.predict(docs)`` gives
    ``predict(plain, docs)`` where `predict` is given; `component` trains it,
    never backprop. (A partial of a module function, so the Model pickles.)"""
    return Model(name, partial(_forward, component, predict), attrs={PLAIN_MODEL: plain})


def _forward(component: str, predict: Optional[Callable], model: Model, docs, is_train: bool):
    if is_train or predict is None:
        raise NotImplementedError(f"{model.name} is trained and run by its component ({component}), "
                                  "not by backprop through thinc")
    return predict(model.attrs[PLAIN_MODEL], docs), None
