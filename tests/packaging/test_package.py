"""`spacy package` of a pipeline trained by `spacy train`: installs with pip
into a fresh venv, loads, and predicts exactly what the original predicts."""
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


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
        [sys.executable, "-m", "scripts.check_package",
         str(tmp_path / "out" / "model-last"), str(sample / "dev.txt"),
         "--workdir", str(tmp_path / "pkg"), "--limit", "150"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-2000:], check.stderr[-3000:])
    assert "predictions identical: True" in check.stdout


@pytest.mark.slow
def test_spacy_package_segmenter(tmp_path):
    """Both forms of a trained segmenter (the adf_segmenter component pipeline
    and a pipeline with the spacy_adf.Segmenter.v1 tokenizer) package, install
    and segment exactly as the originals (checked in one venv)."""
    import spacy
    from tests.helpers.seg_data import make_sentences

    train_file, dev_file = tmp_path / "train.txt", tmp_path / "dev.txt"
    train_file.write_text("".join(" ".join(s) + "\n" for s in make_sentences(300, seed=0)),
                          encoding="utf8")
    dev_file.write_text("".join(" ".join(s) + "\n" for s in make_sentences(50, seed=1)),
                        encoding="utf8")
    train = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "seg_zh_weibo.cfg"),
         "--paths.train", str(train_file), "--paths.dev", str(dev_file),
         "--training.max_epochs", "2", "--training.eval_frequency", "1000",
         "--output", str(tmp_path / "out")],
        capture_output=True, text=True,
    )
    assert train.returncode == 0, train.stderr[-3000:]
    model_last = tmp_path / "out" / "model-last"

    nlp = spacy.blank("zh", config={
        "nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}},
        "initialize": {"tokenizer": {"segmenter_model": str(model_last)}},
    })
    nlp.initialize()
    tok_model = tmp_path / "tokenizer_form"
    nlp.to_disk(tok_model)

    # the script's --segmented reading of a SIGHAN file
    from benchmarks.packaging import read_texts

    dev_texts = read_texts(dev_file, segmented=True)
    assert len(dev_texts) == 50 and not any(" " in t for t in dev_texts)

    # raw texts: the dev sentences plus whitespace and non-Chinese characters
    texts_file = tmp_path / "texts.txt"
    extra = ["中国 人民  银行\t北京", " 我们喜欢 ABC 123 新技术 ", "今天\u3000天气很好。", "x"]
    texts_file.write_text("\n".join(dev_texts + extra) + "\n", encoding="utf8")
    check = subprocess.run(
        [sys.executable, "-m", "scripts.check_package_seg",
         str(model_last), str(tok_model), str(texts_file),
         "--workdir", str(tmp_path / "pkg"), "--name", "seg_comp", "--name", "seg_tok"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-3000:], check.stderr[-3000:])
    assert "2 pipeline(s), 54 texts: predictions identical: True" in check.stdout
    assert "zh_seg_tok" in check.stdout and "SegmenterTokenizer" in check.stdout
    # spacy package picked up spacy-adf as a requirement of both packages
    req_lines = [line for line in check.stdout.splitlines() if "package requirements:" in line]
    assert len(req_lines) == 2 and all("spacy-adf" in line for line in req_lines), req_lines


@pytest.mark.slow
def test_spacy_package_dependency(tmp_path):
    """A pke_dependency pipeline trained by `spacy train` (PKE form) packages,
    installs in a fresh venv and parses exactly as the original."""
    from tests.helpers.dep_data import knp_text

    (tmp_path / "train.knp").write_text(knp_text(150, seed=0), encoding="utf8")
    (tmp_path / "dev.knp").write_text(knp_text(40, seed=1, prefix="dev"), encoding="utf8")
    train = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "dep_ja_kwdlc.cfg"),
         "--paths.train", str(tmp_path / "train.knp"), "--paths.dev", str(tmp_path / "dev.knp"),
         "--components.pke_dependency.degree", "2", "--output", str(tmp_path / "out")],
        capture_output=True, text=True,
    )
    assert train.returncode == 0, train.stderr[-3000:]
    check = subprocess.run(
        [sys.executable, "-m", "scripts.check_package_dep",
         str(tmp_path / "out" / "model-last"), str(tmp_path / "dev.knp"), "--workdir", str(tmp_path / "pkg")],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-2000:], check.stderr[-3000:])
    assert "predictions identical: True" in check.stdout


@pytest.mark.slow
def test_spacy_package_kernel_tagger(tmp_path):
    """A pke_tagger pipeline trained by `spacy train` with the shipped EBC
    config (on the sample corpus) packages, installs in a fresh venv and
    chunks exactly as the original."""
    sample = REPO / "assets" / "sample_chunking"
    train = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "ebc_conll2000.cfg"),
         "--paths.train", str(sample / "train.txt"), "--paths.dev", str(sample / "dev.txt"),
         "--components.chunker.n_jobs", "1", "--output", str(tmp_path / "out")],
        capture_output=True, text=True,
    )
    assert train.returncode == 0, train.stderr[-3000:]
    check = subprocess.run(
        [sys.executable, "-m", "scripts.check_package", str(tmp_path / "out" / "model-last"), str(sample / "dev.txt"),
         "--workdir", str(tmp_path / "pkg"), "--limit", "150", "--name", "pke_chunker"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-2000:], check.stderr[-3000:])
    assert "predictions identical: True" in check.stdout


@pytest.mark.slow
def test_spacy_package_kernel_segmenter(tmp_path):
    """A pke_segmenter pipeline trained by `spacy train` with the shipped JWS
    config (on a small generated KNP corpus) and the tokenizer form of its
    model (spacy_adf.KernelSegmenter.v1) package, install in a fresh venv
    and segment raw text exactly as the originals, bad input included."""
    from tests.helpers.dep_data import knp_text

    (tmp_path / "train.knp").write_text(knp_text(150, seed=0), encoding="utf8")
    (tmp_path / "dev.knp").write_text(knp_text(40, seed=1, prefix="dev"), encoding="utf8")
    train = subprocess.run(
        [sys.executable, "-m", "spacy", "train", str(REPO / "configs" / "jws_kwdlc.cfg"),
         "--paths.train", str(tmp_path / "train.knp"), "--paths.dev", str(tmp_path / "dev.knp"),
         "--output", str(tmp_path / "out")],
        capture_output=True, text=True,
    )
    assert train.returncode == 0, train.stderr[-3000:]
    # the tokenizer form of the same model (spacy_adf.KernelSegmenter.v1)
    import spacy

    model_last = tmp_path / "out" / "model-last"
    nlp = spacy.blank("ja", config={
        "nlp": {"tokenizer": {"@tokenizers": "spacy_adf.KernelSegmenter.v1"}},
        "initialize": {"tokenizer": {"segmenter_model": str(model_last)}},
    })
    nlp.initialize()
    nlp.to_disk(tmp_path / "tokenizer_form")
    texts = tmp_path / "texts.txt"
    texts.write_text("\n".join(["今日は晴れ。 明日も雨", "  東京\tへ行く ", "絵文字😀と未知の字𠮷", "x", "ＡＢＣ１２３です"])
                     + "\n", encoding="utf8")
    check = subprocess.run(
        [sys.executable, "-m", "scripts.check_package_seg", str(model_last), str(tmp_path / "tokenizer_form"),
         str(texts), "--workdir", str(tmp_path / "pkg"), "--name", "pke_seg", "--name", "pke_seg_tok"],
        capture_output=True, text=True, cwd=REPO,
    )
    assert check.returncode == 0, (check.stdout[-3000:], check.stderr[-3000:])
    assert "2 pipeline(s), 5 texts: predictions identical: True" in check.stdout
    assert "ja_pke_seg_tok" in check.stdout and "KernelSegmenterTokenizer" in check.stdout
