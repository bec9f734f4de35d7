"""`spacy package` of a pipeline trained by `spacy train`: installs with pip
into a fresh venv, loads, and predicts exactly what the original predicts."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parent.parent


@pytest.mark.slow
def test_spacy_package_roundtrip(tmp_path):
    sample = REPO / "assets" / "sample_chunking"
    train = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "chunking_np.cfg"),
         "--paths.train", str(sample / "train.txt"), "--paths.dev", str(sample / "dev.txt"),
         "--training.max_epochs", "1", "--training.eval_frequency", "1000",
         "--output", str(tmp_path / "out")],
        capture_output=True, text=True,
    )
    assert train.returncode == 0, train.stderr[-3000:]
    check = subprocess.run(
        [sys.executable, str(REPO / "scripts" / "check_package.py"),
         str(tmp_path / "out" / "model-last"), str(sample / "dev.txt"),
         "--workdir", str(tmp_path / "pkg"), "--limit", "150"],
        capture_output=True, text=True,
    )
    assert check.returncode == 0, (check.stdout[-2000:], check.stderr[-3000:])
    assert "predictions identical: True" in check.stdout
