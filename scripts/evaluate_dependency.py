"""Score a trained pke_dependency pipeline on a KNP / CaboCha / CoNLL-U file:
bunsetsu dependency accuracy (last bunsetsu of each sentence excluded) and
sentence accuracy, with the gold bunsetsu, or with bunsetsu predicted by a
chunker pipeline (`--chunker`, e.g. training/bunsetsu_kwdlc/model-last).

    python -m scripts.evaluate_dependency training/dep_kwdlc/model-last ../shared/data/kwdlc/test.knp \
        --output metrics/dep_kwdlc_test.json
"""
import argparse
import json
import sys
import time
from pathlib import Path

import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_adf.corpora.bunsetsu import FORMATS, bunsetsu_docs, make_predicted
from spacy_adf.scorers.bunsetsu_deps import score_bunsetsu_deps


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("test", type=Path)
    p.add_argument("--format", default="knp", choices=FORMATS)
    p.add_argument("--chunker", type=Path, default=None, help="pipeline that predicts doc.spans['bunsetsu']")
    p.add_argument("--classifier", default=None, help="rebuild the classifier as pkb, pki or pke first")
    p.add_argument("--sigma", type=float, default=None)
    p.add_argument("--xi", type=int, default=None)
    p.add_argument("--output", type=Path, default=None)
    args = p.parse_args(argv)
    nlp = spacy.load(args.model)
    pipe = nlp.get_pipe("pke_dependency")
    if args.classifier:
        pipe.set_classifier(args.classifier, sigma=args.sigma, xi=args.xi)
    refs = list(bunsetsu_docs(args.test, nlp.vocab, format=args.format, bad_heads="skip"))
    docs = [make_predicted(ref, predicted_bunsetsu=args.chunker is None) for ref in refs]
    start = time.perf_counter()
    if args.chunker is not None:
        chunker = spacy.load(args.chunker)
        docs = list(chunker.pipe(Doc(chunker.vocab).from_bytes(d.to_bytes()) for d in docs))
    docs = list(pipe.pipe(docs))
    seconds = time.perf_counter() - start
    scores = score_bunsetsu_deps([Example(d, r) for d, r in zip(docs, refs)])
    result = {"model": str(args.model), "test": str(args.test), "sentences": len(refs),
              "bunsetsu": "predicted" if args.chunker else "gold", "classifier": pipe.cfg["classifier"],
              "sigma": pipe.cfg["sigma"], "xi": pipe.cfg["xi"], "seconds": seconds,
              **{k: 100 * v for k, v in scores.items()}}
    print(json.dumps(result, indent=2, ensure_ascii=False))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(result, indent=2, ensure_ascii=False), encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
