"""Turn a trained adf_segmenter pipeline into a pipeline whose tokenizer is
`spacy_adf.Segmenter.v1` (words straight from the text, no character Doc).

    python -m scripts.make_fast_segmenter training/seg_weibo/model-last training/seg_weibo_fast --lang zh
"""
import argparse
import sys
from pathlib import Path

import spacy


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("model", type=Path)
    p.add_argument("output", type=Path)
    p.add_argument("--lang", default=None, help="language of the new pipeline (default: the model's)")
    p.add_argument("--user-dict", type=Path, default=None)
    args = p.parse_args(argv)
    lang = args.lang or spacy.load(args.model).lang
    nlp = spacy.blank(lang, config={
        "nlp": {"tokenizer": {"@tokenizers": "spacy_adf.Segmenter.v1"}},
        "initialize": {"tokenizer": {"segmenter_model": str(args.model),
                                     "user_dict": None if args.user_dict is None else str(args.user_dict)}},
    })
    nlp.initialize()
    nlp.to_disk(args.output)
    print(f"saved {lang} pipeline with the spacy_adf.Segmenter.v1 tokenizer to {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
