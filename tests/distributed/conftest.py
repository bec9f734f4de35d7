"""A local Ray with 2 CPUs for the whole session (skipped without Ray), and
the small pipelines the tests annotate with."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "assets" / "sample_chunking"


@pytest.fixture(scope="session")
def ray_local():
    ray = pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture(scope="session")
def blank_pipeline(tmp_path_factory):
    """A tokenizer-only English pipeline on disk (annotates raw text)."""
    import spacy

    path = tmp_path_factory.mktemp("blank") / "nlp"
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(path)
    return path
