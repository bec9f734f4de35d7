"""Score a trained bunsetsu chunker on a gold bunsetsu corpus: span P/R/F
and the fraction of sentences whose segmentation is entirely correct.

    python -m scripts.evaluate_bunsetsu training/bunsetsu_kwdlc/model-last \\
        ../shared/data/kwdlc/test.knp --output metrics/bunsetsu_kwdlc.json \\
        [--format knp|cabocha|conllu] [--bad-heads repair|skip]

The pipeline gets the gold tokens with their POS and morphs, without
bunsetsu (as in training); every sentence is scored ("repair" keeps the few
with crossing arcs, whose heads don't matter here).
"""
import argparse
import json
import sys
import time
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

import spacy

from spacy_adf.corpora.bunsetsu import bunsetsu_docs, make_predicted
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY


def _bounds(doc, key: str) -> List[Tuple[int, int]]:
    return [(s.start, s.end) for s in doc.spans.get(key, [])]


def _is_cover(bounds: Sequence[Tuple[int, int]], n: int) -> bool:
    end = 0
    for start, stop in bounds:
        if start != end or stop <= start:
            return False
        end = stop
    return end == n


def bunsetsu_metrics(golds, preds, key: str = BUNSETSU_KEY) -> Dict[str, float]:
    """Span P/R/F (exact start and end), sentence accuracy, and how many
    predicted groups fail to cover their Doc (the parser needs covers)."""
    n_gold = n_pred = n_ok = n_sent_ok = n_not_cover = 0
    for gold, pred in zip(golds, preds):
        g, p = _bounds(gold, key), _bounds(pred, key)
        n_gold += len(g)
        n_pred += len(p)
        n_ok += len(set(g) & set(p))
        n_sent_ok += g == p
        n_not_cover += not _is_cover(p, len(pred))
    prec = n_ok / n_pred if n_pred else 0.0
    rec = n_ok / n_gold if n_gold else 0.0
    f = 2 * prec * rec / (prec + rec) if prec + rec else 0.0
    return {
        "bunsetsu_p": prec, "bunsetsu_r": rec, "bunsetsu_f": f,
        "sentence_acc": n_sent_ok / len(golds) if golds else 0.0,
        "gold_bunsetsu": n_gold, "pred_bunsetsu": n_pred, "not_covering": n_not_cover,
    }


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("gold", type=Path)
    p.add_argument("--output", type=Path, required=True)
    p.add_argument("--format", default="knp", choices=["knp", "cabocha", "conllu"])
    p.add_argument("--bad-heads", default="repair", choices=["repair", "skip"])
    p.add_argument("--key", default=BUNSETSU_KEY, help="the span group the chunker writes")
    args = p.parse_args(argv)
    nlp = spacy.load(args.model)
    golds = list(bunsetsu_docs(args.gold, nlp.vocab, args.format, bad_heads=args.bad_heads))
    inputs = [make_predicted(doc, predicted_bunsetsu=False) for doc in golds]
    start = time.perf_counter()
    preds = list(nlp.pipe(inputs, batch_size=256))
    seconds = time.perf_counter() - start
    scores = bunsetsu_metrics(golds, preds, args.key)
    n_tokens = sum(len(d) for d in golds)
    result = {
        "model": str(args.model),
        "data": str(args.gold),
        "sentences": len(golds),
        "tokens": n_tokens,
        "tokens_per_second": round(n_tokens / seconds),
        "scores": {k: round(100 * v, 2) if isinstance(v, float) else v for k, v in scores.items()},
    }
    print(json.dumps(result, indent=2, ensure_ascii=False))
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
