"""Shared fixtures. Test helpers live in tests/helpers (a package: import
them as ``tests.helpers.NAME``); ``python -m pytest tests`` from the
repository root makes the root importable, so no test edits the import path."""
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
SHARED_DATA = REPO.parent / "shared" / "data"


@pytest.fixture
def shared_data():
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA


@pytest.fixture(scope="session")
def dep_corpus(tmp_path_factory):
    """The synthetic KNP corpus of the dependency tests: train.knp (120
    sentences) and dev.knp (40), made by tests.helpers.dep_data."""
    from tests.helpers.dep_data import knp_text

    d = tmp_path_factory.mktemp("dep")
    (d / "train.knp").write_text(knp_text(120, seed=0, prefix="tr"), encoding="utf8")
    (d / "dev.knp").write_text(knp_text(40, seed=1, prefix="dv"), encoding="utf8")
    return d
