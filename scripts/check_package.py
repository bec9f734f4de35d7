"""`spacy package` round trip: build the package of a trained pipeline,
install it with pip into a fresh virtual environment (together with
spacy-adf from this checkout), load it there and check that its predictions
equal those of the original pipeline.

    python -m scripts.check_package MODEL_DIR CONLL_FILE --workdir DIR
"""
from benchmarks.packaging import check_main

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


def main(argv=None):
    check_main(__doc__, PREDICT, limit=200, name="adf_chunker", argv=argv)


if __name__ == "__main__":
    main()
