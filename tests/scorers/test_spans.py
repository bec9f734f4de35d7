"""The fast span scorer gives spaCy's Scorer.score_spans results."""
import random

import pytest
import spacy
from spacy.scorer import Scorer
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.scorers.spans import score_spans

WORDS = "the cat sat on a mat with two big dogs in New York City today".split()


def _random_spans(rng, doc, n, overlap=False):
    spans, taken = [], set()
    for _ in range(n):
        s = rng.randrange(len(doc))
        e = min(len(doc), s + rng.randrange(1, 4))
        if not overlap and taken & set(range(s, e)):
            continue
        taken |= set(range(s, e))
        spans.append(Span(doc, s, e, label=rng.choice(["A", "B", "C"])))
    return spans


def _examples(seed, retokenize=False, overlap=False):
    rng = random.Random(seed)
    nlp = spacy.blank("en")
    out = []
    for _ in range(40):
        n = rng.randrange(1, len(WORDS))
        words = WORDS[:n]
        gold = Doc(nlp.vocab, words=words)
        if retokenize and n > 2 and rng.random() < 0.5:
            # the predicted Doc splits the first word into two tokens
            pw = [words[0][:1], words[0][1:]] + words[1:] if len(words[0]) > 1 else words
            spaces = [False] + [True] * (len(pw) - 1) if len(pw) > len(words) else None
            pred = Doc(nlp.vocab, words=pw, spaces=spaces)
        else:
            pred = Doc(nlp.vocab, words=words)
        gold.spans["sc"] = _random_spans(rng, gold, rng.randrange(0, 4))
        pred.spans["sc"] = _random_spans(rng, pred, rng.randrange(0, 4), overlap=overlap)
        if rng.random() < 0.1:
            del pred.spans["sc"]
        out.append(Example(pred, gold))
    return out


@pytest.mark.parametrize("retokenize,overlap", [(False, False), (True, False), (False, True)])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fast_span_scores_equal_spacys(seed, retokenize, overlap):
    examples = _examples(seed, retokenize, overlap)
    kw = dict(getter=lambda doc, attr: doc.spans.get("sc", []),
              has_annotation=lambda doc: "sc" in doc.spans)
    assert score_spans(examples, "spans_sc", **kw) == Scorer.score_spans(examples, "spans_sc", **kw)


def test_no_spans_anywhere_gives_none_like_spacy():
    nlp = spacy.blank("en")
    egs = [Example(Doc(nlp.vocab, words=["a"]), Doc(nlp.vocab, words=["a"]))]
    assert score_spans(egs, "ents") == Scorer.score_spans(egs, "ents")


def test_duplicate_and_nested_predicted_spans_score_like_spacy():
    nlp = spacy.blank("en")
    gold = Doc(nlp.vocab, words=WORDS)
    gold.spans["sc"] = [Span(gold, 0, 2, "A"), Span(gold, 4, 6, "B")]
    cases = [
        [(0, 2, "A")],
        [(0, 2, "A"), (0, 2, "A"), (4, 6, "B")],  # a duplicate
        [(0, 3, "A"), (1, 2, "B"), (4, 6, "B")],  # nested
        [(4, 6, "B"), (0, 2, "A"), (0, 2, "B")],  # same tokens, two labels
    ]
    kw = dict(getter=lambda doc, attr: doc.spans.get("sc", []),
              has_annotation=lambda doc: "sc" in doc.spans)
    for spans in cases:
        pred = Doc(nlp.vocab, words=WORDS)
        pred.spans["sc"] = [Span(pred, s, e, label) for s, e, label in spans]
        egs = [Example(pred, gold)]
        assert score_spans(egs, "spans_sc", **kw) == Scorer.score_spans(egs, "spans_sc", **kw), spans
