"""A model file in a format this spacy-adf does not write fails with the
load error that names the component and the file and says to retrain: the
`adf_tagger` files in v0_1_adf_tagger/ were saved by an early development
version (no part frame, version 1 of the CRF format)."""
import shutil
from pathlib import Path

import pytest
import spacy

from spacy_adf.serialization import framed
from spacy_adf.serialization.parts import PartLoadError

OLD_TAGGER = Path(__file__).parent / "v0_1_adf_tagger"


def _tagger():
    return spacy.blank("en").add_pipe("adf_tagger", config={"target": "spans:chunks"})


def test_unframed_file_is_refused():
    with pytest.raises(PartLoadError, match=r"^\[adf_tagger\] cannot load .*model: the file does not start "
                                            r"with a spacy_adf.part header\. .*retrain"):
        _tagger().from_disk(OLD_TAGGER)


def test_old_format_version_is_refused(tmp_path):
    framed_copy = tmp_path / "adf_tagger"
    shutil.copytree(OLD_TAGGER, framed_copy)
    model = framed_copy / "model"
    model.write_bytes(framed.wrap("model", model.read_bytes()))
    with pytest.raises(PartLoadError, match=r"^\[adf_tagger\] cannot load .*model: spacy_adf.crf format version 1 "
                                            r"is not supported \(expects 2\); retrain"):
        _tagger().from_disk(framed_copy)
