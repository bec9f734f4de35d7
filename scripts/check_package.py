"""`spacy package` round trip: build the package of a trained pipeline,
install it with pip into a fresh virtual environment (together with
spacy-adf from this checkout), load it there and check that its predictions
equal those of the original pipeline.

    python scripts/check_package.py MODEL_DIR CONLL_FILE --workdir DIR
"""
import argparse
import json
import subprocess
import sys
import venv
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

PREDICT = r"""
import json, sys, spacy
from spacy_adf.corpora.conll import conll_to_docs
nlp = spacy.load(sys.argv[1])
pairs = list(conll_to_docs(nlp.vocab, sys.argv[2], columns=["words", "tag", "iob"],
                           iob_target="spans:chunks", limit=int(sys.argv[3])))
out = []
for doc in nlp.pipe([p for p, _ in pairs]):
    out.append([[s.start, s.end, s.label_] for s in doc.spans.get("chunks", [])])
print(json.dumps(out))
"""


def run(cmd, **kw):
    print("$", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], check=True, **kw)


def build_sdist(model, out_dir, name, version="0.0.1"):
    """`spacy package MODEL OUT_DIR --name NAME --version VERSION --build sdist`;
    returns the path of the sdist (the newest .tar.gz under OUT_DIR)."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    run([sys.executable, "-m", "spacy", "package", model, out_dir, "--name", name,
         "--version", version, "--force", "--build", "sdist"])
    return sorted(out_dir.rglob("*.tar.gz"))[-1]


def make_venv(env_dir):
    """A fresh virtual environment (no system site-packages) with spacy-adf
    installed by pip from this checkout; returns its python."""
    env_dir = Path(env_dir)
    venv.create(env_dir, with_pip=True, clear=True)
    py = env_dir / "bin" / "python"
    run([py, "-m", "pip", "install", "-q", str(REPO)])
    return py


def check_installed(model, data, workdir, limit, name, predict) -> bool:
    """Package `model`, install it into a fresh venv, run the `predict`
    script (argv: model name or path, data file, limit; prints JSON) in
    both places; True if the outputs are equal."""
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    sdist = build_sdist(model, work / "packages", name, "0.0.1")
    py = make_venv(work / "venv")
    run([py, "-m", "pip", "install", "-q", "--no-deps", str(sdist)])
    original = run([sys.executable, "-c", predict, model, data, limit],
                   capture_output=True, text=True).stdout
    meta = json.loads(Path(model, "meta.json").read_text())
    installed_name = f"{meta['lang']}_{name}"
    packaged = run([py, "-c", predict, installed_name, data, limit],
                   capture_output=True, text=True, cwd=work).stdout
    same = json.loads(original) == json.loads(packaged)
    print(f"{installed_name}: {len(json.loads(original))} sentences, predictions identical: {same}")
    return same


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--limit", type=int, default=200)
    parser.add_argument("--name", default="adf_chunker")
    args = parser.parse_args(argv)
    if not check_installed(args.model, args.data, args.workdir, args.limit, args.name, PREDICT):
        sys.exit(1)


if __name__ == "__main__":
    main()
