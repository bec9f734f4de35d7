"""`spacy package` round trip for a pke_dependency pipeline: build the
package, install it with pip into a fresh virtual environment (with
spacy-adf from this checkout), parse a KNP file there with its gold bunsetsu
and check the heads equal those of the original pipeline.

    python scripts/check_package_dep.py MODEL_DIR KNP_FILE --workdir DIR
"""
import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from check_package import check_installed  # noqa: E402

PREDICT = r"""
import json, sys, spacy
from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
nlp = spacy.load(sys.argv[1])
refs = list(bunsetsu_docs(sys.argv[2], nlp.vocab, limit=int(sys.argv[3])))
docs = nlp.pipe([make_predicted(r) for r in refs])
print(json.dumps([d.spans["bunsetsu"].attrs["heads"] for d in docs]))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model")
    parser.add_argument("data")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--name", default="pke_dep")
    args = parser.parse_args(argv)
    if not check_installed(args.model, args.data, args.workdir, args.limit, args.name, PREDICT):
        sys.exit(1)


if __name__ == "__main__":
    main()
