"""The Python reference of `pke_tagger`'s tagging: the test oracle of the
Cython path (`KernelTagger.tag_docs`: `features/window_ids.pyx`,
`kernels/left_to_right.pyx`, `kernels/pairwise.pyx`), which must give the
same tags. Feature strings, vocabulary lookup, each pair's ``decision`` and
the vote, token by token."""
from typing import List, Sequence, Tuple

from spacy.tokens import Doc

from spacy_adf.kernels.pairwise import class_pairs
from spacy_adf.models.kernel_tagger import OUTSIDE, KernelTagger, dynamic_names


def tally(decisions: Sequence[float], n_classes: int) -> Tuple[List[int], List[float]]:
    """Each class's votes and summed margin in its favour: decisions in
    `class_pairs` order, f > 0 a vote for the pair's lower class, f < 0 for
    the higher."""
    votes = [0] * n_classes
    margin = [0.0] * n_classes
    for (i, j), f in zip(class_pairs(n_classes), decisions):
        if f > 0:
            votes[i] += 1
        elif f < 0:
            votes[j] += 1
        margin[i] += f
        margin[j] -= f
    return votes, margin


def vote(decisions: Sequence[float], n_classes: int) -> int:
    """The pairwise vote (`PairwiseClassifier.decide_ids`) of the `tally`:
    most votes, then the larger summed margin, then the lowest index."""
    votes, margin = tally(decisions, n_classes)
    return min(range(n_classes), key=lambda c: (-votes[c], -margin[c], c))


def reference_tags(tagger: KernelTagger, doc: Doc) -> List[int]:
    """The class ids of a Doc's tokens, as `tagger.tag_docs([doc])[0]` gives them."""
    classes = tagger.classes
    outside = classes.index(OUTSIDE) if OUTSIDE in classes else -1
    out: List[int] = []
    for start, end in tagger.sentences(doc):
        sent: List[int] = []
        for i, feats in enumerate(tagger.static_strings(doc, start, end)):
            if doc[start + i].is_space and outside >= 0:
                sent.append(outside)
                continue
            prev1 = classes[sent[i - 1]] if i >= 1 else None
            prev2 = classes[sent[i - 2]] if i >= 2 else None
            ids = tagger.vocab.lookup(feats + [dynamic_names(prev1)[0], dynamic_names(prev2)[1]])
            sent.append(vote([c.decision(ids) for c in tagger.classifier.classifiers], len(classes)))
        out.extend(sent)
    return out
