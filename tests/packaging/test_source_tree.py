"""Python started in a source tree whose extensions are not compiled (e.g.
the repository root after a non-editable `pip install .`) gets an error that
says what to do, not a bare ModuleNotFoundError."""
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_uncompiled_source_tree_explains_itself(tmp_path):
    shutil.copytree(REPO / "spacy_adf", tmp_path / "spacy_adf",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"))
    shutil.copy(REPO / "setup.py", tmp_path / "setup.py")
    run = subprocess.run([sys.executable, "-c", "import spacy_adf"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode != 0
    assert "source tree" in run.stderr and "pip install -e ." in run.stderr


def test_compiled_tree_imports():
    run = subprocess.run([sys.executable, "-c", "import spacy_adf.core.crf"], cwd=REPO,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
