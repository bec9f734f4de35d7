"""benchmarks.ginza refuses, with a message that says what to do, to run
beside a stray spacy_adf.egg-info in the repository root (through which
spaCy would import every spacy_adf component into GiNZA's environment)."""
import pytest

from benchmarks import ginza


def test_a_stray_egg_info_is_named_with_the_fix(tmp_path, monkeypatch):
    (tmp_path / "spacy_adf.egg-info").mkdir()
    monkeypatch.setattr(ginza, "REPO", tmp_path)
    with pytest.raises(SystemExit) as err:
        ginza.main(["--limit", "1"])
    message = str(err.value)
    assert "spacy_adf.egg-info" in message and "Remove it" in message
