"""`spacy package` round trip for a pke_dependency pipeline: build the
package, install it with pip into a fresh virtual environment (with
spacy-adf from this checkout), parse a KNP file there with its gold bunsetsu
and check the heads equal those of the original pipeline.

    python -m scripts.check_package_dep MODEL_DIR KNP_FILE --workdir DIR
"""
from benchmarks.packaging import check_main

PREDICT = r"""
import json, sys, spacy
from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
nlp = spacy.load(sys.argv[1])
refs = list(bunsetsu_docs(sys.argv[2], nlp.vocab, limit=int(sys.argv[3])))
docs = nlp.pipe([make_predicted(r) for r in refs])
print(json.dumps([d.spans["bunsetsu"].attrs["heads"] for d in docs]))
"""


def main(argv=None):
    check_main(__doc__, PREDICT, limit=0, name="pke_dep", argv=argv)


if __name__ == "__main__":
    main()
