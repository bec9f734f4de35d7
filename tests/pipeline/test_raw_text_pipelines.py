"""Raw-text pipelines assembled from components trained by `spacy train` with
the shipped configs, on small data the project makes itself: English
(tokenizer -> POS tagger -> base-NP chunker reading the predicted POS) and
Japanese (segmenter -> POS and conjugation taggers -> bunsetsu chunker ->
pke_dependency). From raw text to chunks and to a bunsetsu tree, then the
same pipelines as wheels installed into a fresh venv (slow)."""
import subprocess
import sys
from pathlib import Path

import pytest
import spacy

from spacy_adf.packaging.assemble import assemble, parse_source
from spacy_adf.corpora.bunsetsu import bunsetsu_docs
from spacy_adf.corpora.conll import conll_to_docs
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "assets" / "sample_chunking"


def spacy_train(config: str, out: Path, train: Path, dev: Path, *overrides: str) -> Path:
    result = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / config),
         "--paths.train", str(train), "--paths.dev", str(dev), "--output", str(out), *overrides],
        capture_output=True, text=True, cwd=REPO,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return out / "model-last"


@pytest.fixture(scope="module")
def english(tmp_path_factory):
    """(pipeline dir, gold dev Docs): POS tagger and base-NP chunker trained
    on the sample chunking data, assembled behind spaCy's English tokenizer."""
    tmp = tmp_path_factory.mktemp("en")
    train, dev = SAMPLE / "train.txt", SAMPLE / "dev.txt"
    pos = spacy_train("pos_conll2000.cfg", tmp / "pos", train, dev,
                      "--training.max_epochs", "4", "--training.eval_frequency", "1000")
    np_ = spacy_train("chunking_np.cfg", tmp / "np", train, dev,
                      "--training.max_epochs", "4", "--training.eval_frequency", "1000")
    nlp = assemble("blank:en", [f"tagger={pos}", f"np_chunker={np_}:chunker"], "sample_chunk", "0.0.1")
    nlp.to_disk(tmp / "pipeline")
    gold = [ref for _, ref in conll_to_docs(nlp.vocab, dev, columns=["words", "tag", "iob"],
                                            iob_target="spans:chunks", keep_labels=["NP"])]
    return tmp / "pipeline", gold


@pytest.fixture(scope="module")
def japanese(tmp_path_factory, dep_corpus):
    """(pipeline dir, gold dev Docs): all four Japanese parts trained on the
    synthetic KNP corpus, assembled behind the segmenter's tokenizer form."""
    tmp = tmp_path_factory.mktemp("ja")
    train, dev = dep_corpus / "train.knp", dep_corpus / "dev.knp"
    quick = ["--training.max_epochs", "3", "--training.eval_frequency", "1000"]
    seg = spacy_train("seg_ja_kwdlc.cfg", tmp / "seg", train, dev, *quick)
    morph = spacy_train("morph_ja_kwdlc.cfg", tmp / "morph", train, dev, *quick)
    bunsetsu = spacy_train("bunsetsu_ja_kwdlc.cfg", tmp / "bunsetsu", train, dev, *quick)
    dep = spacy_train("dep_ja_kwdlc.cfg", tmp / "dep", train, dev)
    result = subprocess.run([sys.executable, "-m", "spacy_adf", "segmenter-tokenizer", str(seg),
                             str(tmp / "seg_fast"), "--lang", "ja"], capture_output=True, text=True, cwd=REPO)
    assert result.returncode == 0, result.stderr[-3000:]
    nlp = assemble(str(tmp / "seg_fast"), [str(morph), str(bunsetsu), str(dep)], "sample_dep", "0.0.1")
    nlp.to_disk(tmp / "pipeline")
    gold = list(bunsetsu_docs(dev, nlp.vocab))
    return tmp / "pipeline", gold


def test_parse_source():
    assert parse_source("np=training/np/model-last:chunker") == ("np", Path("training/np/model-last"), "chunker")
    assert parse_source("tagger=training/pos/model-last") == ("tagger", Path("training/pos/model-last"), "tagger")
    assert parse_source("training/morph/model-last") == (None, Path("training/morph/model-last"), None)


def test_meta_sources_name_their_licence(tmp_path):
    from spacy_adf.packaging.assemble import parse_meta_source

    assert parse_meta_source("jieba (dict.txt)|https://github.com/fxsjy/jieba|MIT") == {
        "name": "jieba (dict.txt)", "url": "https://github.com/fxsjy/jieba", "license": "MIT"}
    nlp = assemble("blank:en", [], meta_sources=["own clusters||CC0"])
    assert nlp.meta["sources"][-1] == {"name": "own clusters", "url": "", "license": "CC0"}
    with pytest.raises(SystemExit, match="NAME|URL|LICENSE"):
        parse_meta_source("no licence")


def test_assembled_pipelines_pipe_in_small_batches(tmp_path):
    from spacy_adf.packaging.assemble import BATCH_SIZE

    assemble("blank:en", []).to_disk(tmp_path / "p")
    assert spacy.load(tmp_path / "p").batch_size == BATCH_SIZE < 1000
    assert assemble("blank:en", [], batch_size=8).batch_size == 8
    with pytest.raises(SystemExit, match="batch-size"):
        assemble("blank:en", [], batch_size=0)


def test_assemble_names_a_missing_source(tmp_path):
    with pytest.raises(SystemExit, match="train it first"):
        assemble("blank:en", [f"tagger={tmp_path / 'nowhere'}"])


def test_english_raw_text_to_chunks(english):
    path, gold = english
    nlp = spacy.load(path)
    assert nlp.pipe_names == ["tagger", "np_chunker"]
    texts = [" ".join(t.text for t in ref) for ref in gold]
    tp = n_pred = n_gold = 0
    for doc, ref in zip(nlp.pipe(texts), gold):
        assert doc.text == " ".join(t.text for t in ref)
        assert all(t.tag_ for t in doc), "every token gets a predicted POS tag"
        pred = {(doc[s.start].idx, doc[s.end - 1].idx + len(doc[s.end - 1])) for s in doc.spans["chunks"]}
        want = {(ref[s.start].idx, ref[s.end - 1].idx + len(ref[s.end - 1])) for s in ref.spans["chunks"]}
        tp += len(pred & want)
        n_pred += len(pred)
        n_gold += len(want)
    f1 = 2 * tp / (n_pred + n_gold)
    # the sample grammar is regular: predicted POS and chunks are nearly exact
    assert f1 > 0.9, f1


def _bunsetsu_arcs(doc):
    """{(end offset of a bunsetsu, end offset of its head)} over a Doc's
    bunsetsu, heads read from the token tree (a root points to itself)."""
    spans = list(doc.spans[BUNSETSU_KEY])
    of_token = {}
    for k, span in enumerate(spans):
        for t in span:
            of_token[t.i] = k
    end = [s.end_char for s in spans]
    arcs = set()
    for k, span in enumerate(spans):
        head_tokens = {t.head.i for t in span if of_token[t.head.i] != k}
        assert len(head_tokens) <= 1, "a bunsetsu attaches to one head bunsetsu"
        head = of_token[head_tokens.pop()] if head_tokens else k
        arcs.add((end[k], end[head]))
    return arcs


def test_japanese_raw_text_to_bunsetsu_tree(japanese):
    path, gold = japanese
    nlp = spacy.load(path)
    assert nlp.pipe_names == ["morph_pos", "morph_conj_type", "morph_conj_form", "ja_tags",
                              "bunsetsu_chunker", "pke_dependency"]
    right = total = 0
    for doc, ref in zip(nlp.pipe([ref.text for ref in gold]), gold):
        assert doc.text == ref.text
        assert all(t.morph.get("SrcPos") for t in doc), "every word gets a predicted POS"
        assert all(t.tag_ and t.pos_ for t in doc)
        assert BUNSETSU_KEY in doc.spans and doc.has_annotation("DEP")
        got, want = _bunsetsu_arcs(doc), _bunsetsu_arcs(ref)
        right += len(got & want)
        total += len(want)
    assert right / total > 0.85, right / total


def test_japanese_multi_sentence_raw_text(japanese):
    """Two sentences in one text: two trees, no arc across the sentence end."""
    path, gold = japanese
    nlp = spacy.load(path)
    doc = nlp(gold[0].text + gold[1].text)
    first_end = len(gold[0].text)
    for token in doc:
        assert (token.idx < first_end) == (token.head.idx < first_end)


@pytest.mark.slow
def test_pipeline_wheels_in_a_fresh_venv(english, japanese, tmp_path):
    """Both pipelines as wheels, installed after spacy-adf into a fresh venv,
    annotate raw text there exactly as here (scripts.check_pipelines)."""
    en_text, ja_text = tmp_path / "en.txt", tmp_path / "ja.txt"
    en_text.write_text("\n".join(" ".join(t.text for t in ref) for ref in english[1][:20]) + "\n")
    ja_text.write_text("\n".join(ref.text for ref in japanese[1][:20]) + "\n", encoding="utf8")
    check = subprocess.run(
        [sys.executable, "-m", "scripts.check_pipelines",
         "--pipeline", f"en={english[0]}:{en_text}", "--pipeline", f"ja={japanese[0]}:{ja_text}",
         "--workdir", str(tmp_path / "work")],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-3000:], check.stderr[-3000:])
    assert check.stdout.count("annotations identical") == 2
    assert ": False" not in check.stdout


def _spacy_evaluate(pipeline: Path, corpus: Path, out: Path, *options: str) -> dict:
    import srsly

    result = subprocess.run([sys.executable, "-m", "spacy", "evaluate", str(pipeline), str(corpus),
                             "--output", str(out), *options], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr[-3000:]
    return srsly.read_json(out)


def test_spacy_evaluate_english_from_converted_conll(english, tmp_path):
    """`spacy evaluate` on a DocBin that `python -m spacy_adf convert` makes:
    the chunk F of raw text (predicted tokens and POS), as counted here by
    character offsets."""
    path, gold = english
    corpus = tmp_path / "dev.spacy"
    subprocess.run([sys.executable, "-m", "spacy_adf", "convert", str(SAMPLE / "dev.txt"), str(corpus),
                    "--columns", "words,tag,iob", "--iob-target", "spans:chunks", "--keep-labels", "NP"],
                   check=True, capture_output=True, cwd=tmp_path)
    scores = _spacy_evaluate(path, corpus, tmp_path / "scores.json", "--spans-key", "chunks")
    nlp = spacy.load(path)
    pred, want = set(), set()
    for n, (doc, ref) in enumerate(zip(nlp.pipe([ref.text for ref in gold]), gold)):
        pred |= {(n, s.start_char, s.end_char) for s in doc.spans["chunks"]}
        want |= {(n, s.start_char, s.end_char) for s in ref.spans["chunks"]}
    f = 2 * len(pred & want) / (len(pred) + len(want))
    assert scores["spans_chunks_f"] == pytest.approx(f)


def test_spacy_evaluate_japanese_from_converted_knp(japanese, dep_corpus, tmp_path):
    """`spacy evaluate` on the KNP dev file converted by `python -m spacy_adf
    convert --format knp`: the pipeline segments the raw text itself, and
    the bunsetsu dependency accuracy is the raw-text one (a gold arc is right
    if a predicted bunsetsu ends where it ends and attaches to one that ends
    where its head ends), counted here from the token trees."""
    path, gold = japanese
    corpus = tmp_path / "dev.spacy"
    subprocess.run([sys.executable, "-m", "spacy_adf", "convert", str(dep_corpus / "dev.knp"), str(corpus),
                    "--format", "knp"], check=True, capture_output=True, cwd=tmp_path)
    scores = _spacy_evaluate(path, corpus, tmp_path / "scores.json")
    nlp = spacy.load(path)
    right = total = 0
    for doc, ref in zip(nlp.pipe([ref.text for ref in gold]), gold):
        want = {(end, head) for end, head in _bunsetsu_arcs(ref) if end != head}  # roots are not scored
        right += len(want & _bunsetsu_arcs(doc))
        total += len(want)
    assert total > 100
    assert scores["bunsetsu_dep_acc"] == pytest.approx(right / total)
    assert 0 < scores["token_f"] <= 1
