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
