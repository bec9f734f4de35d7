"""The counts of a brat folder read in full, for the reader's tests."""
from typing import Dict

from spacy_adf.corpora.brat import BratCorpus


def alignment_stats(nlp, path, **kwargs) -> Dict[str, int]:
    """Counts of one complete read (documents, entities, issues per kind)."""
    corpus = BratCorpus(path, **{"warn": False, **kwargs})
    corpus.issues(nlp)
    return dict(corpus.last_stats)
