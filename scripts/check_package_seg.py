"""`spacy package` round trip for trained word segmenters: build the package
of each pipeline, install the packages with pip into one fresh virtual
environment (together with spacy-adf from this checkout), load each there by
its package name and check that it segments every text exactly as the
original pipeline does in this process (same tokens, same whitespace).

A pipeline is either form of a trained segmenter: the component pipeline
that `spacy train configs/seg_zh_weibo.cfg` writes (CharTokenizer.v1 +
adf_segmenter), or a pipeline whose tokenizer is spacy_adf.Segmenter.v1.

    python -m scripts.check_package_seg MODEL_DIR [MODEL_DIR ...] TEXT_FILE --workdir DIR
        [--segmented] [--limit N] [--name NAME ...] [--version VERSION]

TEXT_FILE has one text per line (blank lines are skipped); with --segmented
the ASCII spaces of each line are removed first, so a SIGHAN-style file of
space-separated words can be given as it is. Several pipelines share one
venv (spacy-adf is compiled once). Exits 0 only if all predictions are
identical.
"""
import argparse
import json
import sys
from pathlib import Path
from typing import List

from benchmarks.packaging import build_sdist, make_venv, read_texts, run

# Run in the new venv, from the work dir (so this checkout is not on the
# path). spacy_adf is deliberately not imported: spacy.load must find the
# tokenizer, factories etc. through spacy-adf's entry points.
PREDICT = r"""
import json, sys, spacy
names = json.loads(sys.argv[1])
with open(sys.argv[2], encoding="utf8") as f:
    texts = json.load(f)
out = {}
for name in names:
    nlp = spacy.load(name)
    docs = [[[t.text, t.whitespace_] for t in doc] for doc in nlp.pipe(texts)]
    mod = sys.modules.get("spacy_adf")
    out[name] = {
        "docs": docs,
        "tokenizer": type(nlp.tokenizer).__module__ + "." + type(nlp.tokenizer).__name__,
        "pipeline": nlp.pipe_names,
        "package_path": str(spacy.util.get_package_path(name)),
        "spacy_adf": getattr(mod, "__file__", None),
    }
with open(sys.argv[3], "w", encoding="utf8") as f:
    json.dump(out, f, ensure_ascii=False)
"""


def segment(nlp, texts: List[str]) -> List[List[List[str]]]:
    return [[[t.text, t.whitespace_] for t in doc] for doc in nlp.pipe(texts)]


def package_names(names: List[str], n_models: int) -> List[str]:
    if not names:
        names = ["adf_segmenter"]
    if len(names) == n_models:
        return names
    if len(names) == 1:
        return [f"{names[0]}_{i + 1}" for i in range(n_models)]
    raise SystemExit(f"--name given {len(names)} times for {n_models} pipelines: give it once "
                     "(numbered names) or once per pipeline")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("models", nargs="+", metavar="MODEL_DIR",
                        help="trained segmenter pipeline (component or Segmenter.v1 tokenizer form)")
    parser.add_argument("data", metavar="TEXT_FILE", help="one text per line")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--segmented", action="store_true",
                        help="remove the ASCII spaces of each line (SIGHAN-style input)")
    parser.add_argument("--limit", type=int, default=0, help="use the first N texts (0: all)")
    parser.add_argument("--name", action="append", default=[],
                        help="package name (the package is <lang>_<name>); default "
                             "adf_segmenter, numbered if there are several pipelines")
    parser.add_argument("--version", default="0.0.1", help="package version")
    args = parser.parse_args(argv)

    import spacy

    texts = read_texts(args.data, args.segmented, args.limit)
    if not texts:
        raise SystemExit(f"no texts in {args.data}")
    names = package_names(args.name, len(args.models))
    work = Path(args.workdir).resolve()
    work.mkdir(parents=True, exist_ok=True)

    original, installed, sdists, requirements = {}, [], [], {}
    for i, (model, name) in enumerate(zip(args.models, names)):
        meta = json.loads(Path(model, "meta.json").read_text(encoding="utf8"))
        installed_name = f"{meta['lang']}_{name}"
        nlp = spacy.load(model)
        original[installed_name] = {
            "docs": segment(nlp, texts),
            "tokenizer": type(nlp.tokenizer).__module__ + "." + type(nlp.tokenizer).__name__,
            "pipeline": nlp.pipe_names,
        }
        sdist = build_sdist(model, work / "packages" / str(i), name, args.version)
        sdists.append(sdist)
        installed.append(installed_name)
        # the generated package's meta.json (next to its dist/ folder)
        pkg_meta = json.loads((sdist.parent.parent / "meta.json").read_text(encoding="utf8"))
        requirements[installed_name] = pkg_meta.get("requirements", [])

    py = make_venv(work / "venv")
    run([py, "-m", "pip", "install", "-q", "--no-deps", *sdists])
    texts_file = work / "texts.json"
    texts_file.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf8")
    out_file = work / "packaged.json"
    predict_file = work / "predict.py"
    predict_file.write_text(PREDICT, encoding="utf8")
    run([py, predict_file, json.dumps(installed), texts_file, out_file], cwd=work)
    packaged = json.loads(out_file.read_text(encoding="utf8"))

    all_same = True
    for model, name in zip(args.models, installed):
        orig, pack = original[name], packaged[name]
        n_diff = sum(a != b for a, b in zip(orig["docs"], pack["docs"]))
        n_diff += abs(len(orig["docs"]) - len(pack["docs"]))
        n_text = sum("".join(w + s for w, s in doc) != t for doc, t in zip(pack["docs"], texts))
        same = orig["docs"] == pack["docs"]
        all_same &= same
        n_tok = sum(len(d) for d in orig["docs"])
        n_tok_pack = sum(len(d) for d in pack["docs"])
        print(f"{name} (from {model}):")
        print(f"  package requirements: {', '.join(requirements[name]) or 'none'}")
        print(f"  original: tokenizer {orig['tokenizer']}, pipeline {orig['pipeline']}")
        print(f"  packaged: tokenizer {pack['tokenizer']}, pipeline {pack['pipeline']}, "
              f"loaded from {pack['package_path']}, spacy_adf {pack['spacy_adf']}")
        print(f"  {len(texts)} texts, {n_tok} tokens (packaged: {n_tok_pack}), "
              f"{n_diff} texts differ, {n_text} packaged texts not preserved, "
              f"predictions identical: {same}")
    print(f"{len(installed)} pipeline(s), {len(texts)} texts: predictions identical: {all_same}")
    if not all_same:
        sys.exit(1)


if __name__ == "__main__":
    main()
