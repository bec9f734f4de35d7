"""Write small trained pipelines of every spacy-adf component kind with the
code of the day, and their predictions, for test_main_pipelines.py.

The fixtures in main_8135a26/ were written by this script with the code of
commit 8135a26 (before the component contract of issue 29: `plain_model`,
the kernel component base, versioned kernel payloads); pipelines saved then
must keep loading and predicting the same. Run from the repository root:

    python tests/compat/make_main_pipelines.py tests/compat/main_8135a26

Self-contained on purpose (the public API and tiny data made here, plus the
v0.1 script's pipelines), so it runs against any version of the package.
"""
import json
import random
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

sys.path.insert(0, str(Path(__file__).parent))
import make_legacy_pipelines as legacy  # noqa: E402  (the v0.1 fixtures' pipelines)

PKE_CHUNKS = legacy.CHUNKS * 3


def pke_tagger():
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", config={"degree": 2, "sigma": 0.0, "C": 10.0})
    egs = []
    for words, tags, spans in PKE_CHUNKS:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        egs.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    nlp.initialize(lambda: egs)
    return nlp


def pke_segmenter():
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    nlp.add_pipe("pke_segmenter", config={"trainer": "libsvm", "classifier": "pke", "sigma": 0.0, "degree": 2})
    egs = legacy._seg_examples(nlp, 60, 0)
    nlp.initialize(lambda: egs)
    return nlp


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "_knp"
    tmp.mkdir(exist_ok=True)
    expected = {}
    nlp = legacy.tagger()
    nlp.to_disk(out_dir / "tagger")
    expected["tagger"] = legacy.tagger_predictions(nlp)
    nlp = legacy.segmenter()
    nlp.to_disk(out_dir / "segmenter")
    expected["segmenter"] = legacy.words(nlp, legacy.SEG_TESTS)
    fast = legacy.segmenter_tokenizer(out_dir / "segmenter")
    fast.to_disk(out_dir / "segmenter_tokenizer")
    expected["segmenter_tokenizer"] = legacy.words(fast, legacy.SEG_TESTS)
    nlp = legacy.textcat()
    nlp.to_disk(out_dir / "textcat")
    expected["textcat"] = [nlp(t).cats for t in legacy.TEXTCAT_TESTS]
    nlp = legacy.dependency(tmp)
    nlp.to_disk(out_dir / "dependency")
    expected["dependency"] = legacy.dependency_predictions(nlp, tmp)
    nlp = pke_tagger()
    nlp.to_disk(out_dir / "pke_tagger")
    expected["pke_tagger"] = legacy.tagger_predictions(nlp)
    nlp = pke_segmenter()
    nlp.to_disk(out_dir / "pke_segmenter")
    expected["pke_segmenter"] = legacy.words(nlp, legacy.SEG_TESTS)
    fast = legacy.segmenter_tokenizer(out_dir / "pke_segmenter", "spacy_adf.KernelSegmenter.v1")
    fast.to_disk(out_dir / "pke_segmenter_tokenizer")
    expected["pke_segmenter_tokenizer"] = legacy.words(fast, legacy.SEG_TESTS)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    (out_dir / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=1), encoding="utf8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
