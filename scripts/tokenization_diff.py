"""Where an English tokenizer splits CoNLL-2000 text differently from the
treebank: the file's words joined by spaces (as benchmarks.raw_text builds
raw text), tokenized, and every treebank token the tokenizer does not
produce counted by kind, with the most frequent cases.

    python -m scripts.tokenization_diff CONLL_FILE [--tokenizer spacy|ptb] [--top 30]

``spacy``: spaCy's English tokenizer with hyphenated words kept whole (the
English pipeline before issue 28); ``ptb``: spacy_adf.tokenizers.english.
"""
import argparse
import re
from collections import Counter
from typing import Dict, List, Tuple

import spacy

from benchmarks.raw_text import _joined
from spacy_adf.packaging.assemble import keep_hyphenated_words
from spacy_adf.corpora.conll import read_conll
from spacy_adf.tokenizers.english import ABBREVIATIONS, CONTRACTIONS, ptb_english_tokenizer


def kind_of(word: str) -> str:
    if re.fullmatch(r"[0-9][0-9.,]*(-[0-9.,]+)+", word):
        return "number range"
    if "-" in word:
        return "hyphenated"
    if word.lower() in CONTRACTIONS or word.lower().replace("\u2019", "'") in CONTRACTIONS:
        return "contraction apart"
    if re.fullmatch(r"'[0-9]{2}s?", word):
        return "clipped year"
    if word.endswith(".") and len(word) > 1:
        return "abbreviation"
    if "'" in word:
        return "apostrophe"
    return "other"


def differences(path: str, tokenizer: str) -> Tuple[int, int, Counter, Counter]:
    """(sentences, sentences with a difference, count by kind, count by
    (treebank token, tokenizer's pieces))."""
    nlp = spacy.blank("en")
    if tokenizer == "ptb":
        ptb_english_tokenizer(nlp)
    else:
        keep_hyphenated_words(nlp)
    kinds, cases = Counter(), Counter()
    n = differing = 0
    for columns in read_conll(path, 3):
        text, starts, ends = _joined(columns[0])
        gold = set(zip(starts, ends))
        pred = {(t.idx, t.idx + len(t)) for t in nlp.make_doc(text)}
        n += 1
        differing += gold != pred
        for s, e in sorted(gold - pred):
            pieces = "|".join(text[a:b] for a, b in sorted(pred) if a < e and b > s)
            kinds[kind_of(text[s:e])] += 1
            cases[(text[s:e], pieces)] += 1
    return n, differing, kinds, cases


def main(argv=None) -> Dict:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("path")
    p.add_argument("--tokenizer", choices=["spacy", "ptb"], default="ptb")
    p.add_argument("--top", type=int, default=30)
    args = p.parse_args(argv)
    n, differing, kinds, cases = differences(args.path, args.tokenizer)
    print(f"{args.path}: {n} sentences, {differing} tokenized differently; "
          f"{sum(kinds.values())} treebank tokens not produced")
    for kind, count in kinds.most_common():
        print(f"  {count:5d}  {kind}")
    for (word, pieces), count in cases.most_common(args.top):
        print(f"  {count:5d}  {word!r} -> {pieces!r}")
    return {"sentences": n, "differing": differing, "kinds": dict(kinds)}


if __name__ == "__main__":
    main()
