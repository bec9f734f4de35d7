"""Small trained pipelines of every component kind, for tests of behaviour
that any trained model shows (error handling, empty Docs): the committed
pipelines of tests/compat/saved_pipelines (make_main_pipelines.py)."""
from pathlib import Path

import spacy

FIXTURES = Path(__file__).parent.parent / "compat" / "saved_pipelines"
# fixture directory -> the registered component it holds (its last pipe)
COMPONENT_OF = {
    "tagger": "adf_tagger",
    "segmenter": "adf_segmenter",
    "textcat": "adf_textcat",
    "dependency": "pke_dependency",
    "pke_tagger": "pke_tagger",
    "pke_segmenter": "pke_segmenter",
}


def load_trained(kind: str):
    """(nlp, component) of the fixture pipeline `kind` (a COMPONENT_OF key)."""
    nlp = spacy.load(FIXTURES / kind)
    name, component = nlp.pipeline[-1]
    assert nlp.get_pipe_meta(name).factory == COMPONENT_OF[kind]
    return nlp, component
