"""Damaged model files never load silently: every file spacy-adf writes (a
component's cfg, model, lexicon, features, support_vectors, classifier and
the spacy_adf.Segmenter.v1 tokenizer's tokenizer/segmenter) is checksummed,
and a bit flip, a truncation or an empty file makes spacy.load raise a
ValueError that names the component and the file and says what to do.

The one exception is documented: a flip that leaves a cfg's JSON equivalent
(e.g. whitespace turned into other whitespace) loads, and then the pipeline
is the same. Tiny pipelines of all five kinds are trained once (the
recipes of tests/compat/make_main_pipelines.py; "xx" for the tagger and
the text classifier, and no tokenizer special cases, which load slowly).
"""
import random

import pytest
import spacy
import srsly
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.serialization import framed
from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer
from tests.compat import make_main_pipelines as recipes

FLIP_TRIALS = 8
# the files spacy-adf writes, per pipeline (not spaCy's own vocab and tokenizer files)
FILES = {
    "tagger": ["adf_tagger/cfg", "adf_tagger/model"],
    "segmenter": ["adf_segmenter/cfg", "adf_segmenter/lexicon", "adf_segmenter/model"],
    "segmenter_tokenizer": ["tokenizer/segmenter"],
    "textcat": ["adf_textcat/cfg", "adf_textcat/model"],
    "dependency": ["pke_dependency/cfg", "pke_dependency/features", "pke_dependency/support_vectors",
                   "pke_dependency/classifier"],
}
# files in which a flip may leave an equivalent JSON text (the tokenizer file holds a cfg)
JSON_FILES = {"cfg", "segmenter"}


def _tagger():
    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_tagger", config={"target": "spans:chunks", "model": {
        "@architectures": "spacy_adf.CRF.v1", "templates": ["w[0]", "t[-1]", "t[0]", "t[1]", "t[0]|t[1]"]}})
    egs = []
    for words, tags, spans in recipes.CHUNKS:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=label) for s, e, label in spans]
        egs.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    nlp.initialize(lambda: egs)
    return recipes._train(nlp, egs, 5)


def _textcat():
    nlp = spacy.blank("xx")
    nlp.add_pipe("adf_textcat")
    rng = random.Random(0)
    egs = []
    for i in range(20):
        label = "positive" if i % 2 == 0 else "negative"
        ws = rng.sample(recipes.FILLER, 4) + [rng.choice(recipes.POS_WORDS if i % 2 == 0 else recipes.NEG_WORDS)]
        ref = Doc(nlp.vocab, words=ws)
        ref.cats = {"positive": float(label == "positive"), "negative": float(label == "negative")}
        egs.append(Example(Doc(nlp.vocab, words=ws), ref))
    nlp.initialize(lambda: egs)
    return recipes._train(nlp, egs, 3)


def _fast(nlp):
    nlp.tokenizer.rules = {}  # the special cases make spacy.load slow; the tests do not need them
    return nlp


@pytest.fixture(scope="module")
def pipelines(tmp_path_factory):
    """{kind: (directory, predict, predictions of the undamaged pipeline)}"""
    root = tmp_path_factory.mktemp("damaged")
    work = root / "knp"
    work.mkdir()

    def seg_words(nlp):
        return recipes.words(nlp, recipes.SEG_TESTS)

    predict = {
        "tagger": recipes.tagger_predictions,
        "segmenter": seg_words,
        "segmenter_tokenizer": seg_words,
        "textcat": lambda nlp: [nlp(t).cats for t in recipes.TEXTCAT_TESTS],
        "dependency": lambda nlp: recipes.dependency_predictions(nlp, work),
    }
    _fast(_tagger()).to_disk(root / "tagger")
    recipes.segmenter().to_disk(root / "segmenter")
    recipes.segmenter_tokenizer(root / "segmenter").to_disk(root / "segmenter_tokenizer")
    _fast(_textcat()).to_disk(root / "textcat")
    _fast(recipes.dependency(work)).to_disk(root / "dependency")
    out = {}
    for kind, fn in predict.items():
        out[kind] = (root / kind, fn, fn(spacy.load(root / kind)))
    return out


def _component_cfgs(nlp):
    cfgs = {name: dict(pipe.cfg) for name, pipe in nlp.pipeline}
    if isinstance(nlp.tokenizer, SegmenterTokenizer):
        cfgs["tokenizer"] = dict(nlp.tokenizer.component.cfg)
    return cfgs


def _flip(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for bit in rng.sample(range(len(out) * 8), rng.randint(1, 3)):
        out[bit // 8] ^= 1 << (bit % 8)
    return bytes(out)


def _damaged_versions(data: bytes, seed: int):
    rng = random.Random(seed)
    for trial in range(FLIP_TRIALS):
        yield f"flip {trial}", _flip(data, rng)
    for n in (len(data) - 1, len(data) // 2, 10, 1):
        yield f"truncated to {n} bytes", data[:n]
    yield "empty", b""
    yield "extra byte", data + b"\x00"


def _component_label(rel: str) -> str:
    top = rel.split("/")[0]
    return "spacy_adf.Segmenter.v1" if top == "tokenizer" else f"[{top}]"


@pytest.mark.parametrize("kind", list(FILES))
def test_every_file_is_checked(kind, pipelines):
    path, predict, expected = pipelines[kind]
    nlp = spacy.load(path)
    # every file spacy-adf wrote is in the list
    written = {f"{name}/{f.name}" for name, _ in nlp.pipeline for f in (path / name).iterdir()}
    if isinstance(nlp.tokenizer, SegmenterTokenizer):
        written.add("tokenizer/segmenter")
    assert written == set(FILES[kind])
    cfgs = _component_cfgs(nlp)
    equivalent = 0
    for seed, rel in enumerate(FILES[kind]):
        file = path / rel
        original = file.read_bytes()
        try:
            for what, data in _damaged_versions(original, seed):
                file.write_bytes(data)
                try:
                    loaded = spacy.load(path)
                except ValueError as e:
                    message = str(e)
                    assert str(file) in message, (rel, what, message)
                    assert _component_label(rel) in message, (rel, what, message)
                    assert "retrain" in message, (rel, what, message)
                    continue
                # only an equivalent JSON text may load, and then nothing changed
                assert file.name in JSON_FILES and what.startswith("flip"), (rel, what)
                assert _component_cfgs(loaded) == cfgs, (rel, what)
                assert predict(loaded) == expected, (rel, what)
                equivalent += 1
        finally:
            file.write_bytes(original)
    assert equivalent <= 2  # rare: whitespace or a number spelled differently


def _flip_parts(blob: bytes, rng: random.Random):
    """(part name, the serialized data with bits flipped in that part)."""
    msg = srsly.msgpack_loads(blob)
    for name in sorted(msg):
        for _ in range(3):
            yield name, srsly.msgpack_dumps({**msg, name: _flip(msg[name], rng)})


@pytest.mark.parametrize("kind", ["tagger", "segmenter", "textcat", "dependency"])
def test_from_bytes_names_the_part(kind, pipelines):
    path, _, _ = pipelines[kind]
    nlp = spacy.load(path)
    name, pipe = nlp.pipeline[0]
    blob = pipe.to_bytes()
    rng = random.Random(1)
    for part, data in _flip_parts(blob, rng):
        with pytest.raises(ValueError) as e:
            pipe.from_bytes(data)
        assert f"[{name}]" in str(e.value) and f"'{part}'" in str(e.value) and "retrain" in str(e.value)
    for data in [blob[: len(blob) // 2], b"", srsly.msgpack_dumps({k: v for k, v in
                                                                 srsly.msgpack_loads(blob).items() if k != "cfg"})]:
        with pytest.raises(ValueError, match=rf"\[{name}\].*retrain"):
            pipe.from_bytes(data)


def test_tokenizer_from_bytes(pipelines):
    path, _, _ = pipelines["segmenter_tokenizer"]
    tokenizer = spacy.load(path).tokenizer
    blob = tokenizer.to_bytes()
    rng = random.Random(2)
    for _ in range(FLIP_TRIALS):
        data = _flip(blob, rng)
        try:
            tokenizer.from_bytes(data)
        except ValueError as e:
            assert "spacy_adf.Segmenter.v1" in str(e) and "tokenizer data" in str(e) and "retrain" in str(e)
        else:  # an equivalent cfg JSON inside
            pass
    for data in [blob[:-1], b""]:
        with pytest.raises(ValueError, match="spacy_adf.Segmenter.v1: cannot load the tokenizer data"):
            tokenizer.from_bytes(data)


@pytest.mark.parametrize("drop_checksum", [False, True])
def test_unframed_file_is_refused(pipelines, tmp_path, drop_checksum):
    """A file without its part frame is refused, also after a cfg without
    a checksum (one edited by hand)."""
    path, _, _ = pipelines["textcat"]
    nlp = spacy.load(path)
    nlp.to_disk(tmp_path / "p")
    if drop_checksum:
        cfg_file = tmp_path / "p" / "adf_textcat" / "cfg"
        srsly.write_json(cfg_file, {k: v for k, v in srsly.read_json(cfg_file).items() if k != "checksum"})
    model = tmp_path / "p" / "adf_textcat" / "model"
    model.write_bytes(bytes(framed.unwrap("model", model.read_bytes())))
    with pytest.raises(ValueError, match="model: the file does not start with a spacy_adf.part header"):
        spacy.load(tmp_path / "p")
    # a file of another part, even intact, is refused
    model.write_bytes((tmp_path / "p" / "adf_textcat" / "cfg").read_bytes())
    with pytest.raises(ValueError, match="model"):
        spacy.load(tmp_path / "p")


def test_cfg_edited_by_hand(pipelines, tmp_path):
    """The cfg stays human-readable JSON; an edit must drop the checksum key."""
    path, predict, expected = pipelines["tagger"]
    spacy.load(path).to_disk(tmp_path / "p")
    cfg_file = tmp_path / "p" / "adf_tagger" / "cfg"
    cfg = srsly.read_json(cfg_file)
    assert cfg["checksum"].startswith("crc32:")
    cfg["store_marginals"] = not cfg["store_marginals"]
    srsly.write_json(cfg_file, cfg)
    with pytest.raises(ValueError, match=r"adf_tagger/cfg: checksum mismatch .*drop its 'checksum' key"):
        spacy.load(tmp_path / "p")
    del cfg["checksum"]
    srsly.write_json(cfg_file, cfg)
    assert predict(spacy.load(tmp_path / "p")) == expected
    # the checksum under a damaged key name is not taken for an edit
    cfg["chec{sum"] = "crc32:0123abcd"
    srsly.write_json(cfg_file, cfg)
    with pytest.raises(ValueError, match="stored under the key 'chec{sum'"):
        spacy.load(tmp_path / "p")

