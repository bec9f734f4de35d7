"""Score a trained segmenter pipeline (component or Segmenter.v1 tokenizer
form) on a gold corpus: SIGHAN word P/R/F, OOV and IV recall.

    python -m scripts.evaluate_segmentation training/seg_weibo/model-last \\
        ../shared/data/nlpcc2016_weibo/nlpcc2016-wordseg-dev.dat --format segmented \\
        [--user-dict words.txt] [--output metrics/seg_weibo_dev.json]

OOV is relative to the segmenter's own training words.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import spacy

from benchmarks.segmentation import read_words
from spacy_adf.pipeline.segmenter import ADFSegmenter
from spacy_adf.scorers.segmentation import segmentation_prf
from spacy_adf.tokenizers.word_tokenizer import SegmenterTokenizer


def find_segmenter(nlp) -> ADFSegmenter:
    for _, pipe in nlp.pipeline:
        if isinstance(pipe, ADFSegmenter):
            return pipe
    if isinstance(nlp.tokenizer, SegmenterTokenizer) and nlp.tokenizer.is_trained:
        return nlp.tokenizer.component
    raise SystemExit("the pipeline has no trained adf_segmenter")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("gold", type=Path)
    p.add_argument("--format", default="segmented", choices=["segmented", "conllu", "knp"])
    p.add_argument("--user-dict", type=Path, default=None)
    p.add_argument("--output", type=Path, default=None)
    args = p.parse_args(argv)
    nlp = spacy.load(args.model)
    seg = find_segmenter(nlp)
    if args.user_dict is not None:
        seg.load_user_dict(args.user_dict)
    gold = read_words(args.gold, args.format)
    texts = ["".join(words) for words in gold]
    start = time.perf_counter()
    pred = [[t.text for t in doc if not t.is_space] for doc in nlp.pipe(texts, batch_size=256)]
    seconds = time.perf_counter() - start
    scores = segmentation_prf(gold, pred, set(seg.plain_model.train_words))
    scores = {k: round(100 * v, 2) for k, v in scores.items()}
    scores.update({"sentences": len(gold), "characters": sum(map(len, texts)),
                   "chars_per_second": round(sum(map(len, texts)) / seconds)})
    print(json.dumps(scores, indent=2))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(json.dumps(scores, indent=2) + "\n", encoding="utf8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
