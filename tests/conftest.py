import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
REPO = TESTS.parent
SHARED_DATA = REPO.parent / "shared" / "data"
sys.path.insert(0, str(TESTS))


@pytest.fixture
def shared_data():
    if not SHARED_DATA.exists():
        pytest.skip("../shared/data is not available")
    return SHARED_DATA
