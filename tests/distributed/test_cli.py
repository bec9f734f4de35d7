"""python -m spacy_adf.distributed: defaults in --help, and every argument
and output-folder check made before Ray starts (the refusals come from a
process in which Ray never started)."""
import subprocess
import sys

import pytest

pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')

from .conftest import REPO, SAMPLE  # noqa: E402

CONFIG = REPO / "configs" / "chunking_np.cfg"


def cli(*args):
    return subprocess.run([sys.executable, "-m", "spacy_adf.distributed", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=300)


def test_help_shows_the_defaults():
    out = " ".join(cli("annotate", "--help").stdout.split())
    assert "(default: 10000)" in out and "(default: 256)" in out and "(default: 2)" in out
    out = " ".join(cli("train", "--help").stdout.split())
    assert "(default: 1)" in out and "default: as many as --workers" in out


def refused(proc, message):
    assert proc.returncode == 1, proc.stderr[-2000:]
    assert proc.stderr.strip().splitlines()[-1].startswith("error: ") and message in proc.stderr
    assert "Started a local Ray" not in proc.stderr and "Traceback" not in proc.stderr


def test_train_output_checks_come_before_ray(tmp_path):
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "notes.txt").write_text("x")
    paths = ["--paths.train", SAMPLE / "train.txt", "--paths.dev", SAMPLE / "dev.txt"]
    refused(cli("train", CONFIG, "--output", tmp_path / "used", *paths), "holds no IPM checkpoint")
    refused(cli("train", CONFIG, "--output", tmp_path / "used" / "notes.txt", *paths), "is a file")
    refused(cli("train", tmp_path / "none.cfg", "--output", tmp_path / "new"), "no config file")
    refused(cli("train", CONFIG, "--workers", "0", *paths), "must be positive")


def test_train_refuses_another_run_s_checkpoint(tmp_path):
    from spacy_adf.distributed.checkpoint import save_checkpoint

    save_checkpoint(tmp_path / "out", {}, {"config": "[x]\n", "n_shards": 2})
    refused(cli("train", CONFIG, "--output", tmp_path / "out", "--paths.train", SAMPLE / "train.txt",
                "--paths.dev", SAMPLE / "dev.txt"), "holds the checkpoint of another run")


def test_annotate_checks_come_before_ray(blank_pipeline, tmp_path):
    inp = tmp_path / "in.txt"
    inp.write_text("a\n")
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "x.txt").write_text("x")
    refused(cli("annotate", blank_pipeline, inp, tmp_path / "used"), "holds no manifest.json")
    refused(cli("annotate", tmp_path / "nope", inp, tmp_path / "out"), "no pipeline at")
    refused(cli("annotate", blank_pipeline, tmp_path / "missing.txt", tmp_path / "out"), "no input files")
