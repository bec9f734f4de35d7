"""Kernel components say what they do while they read the corpus, before
the SVM's own lines (a large corpus takes minutes there): issue 29, item 6."""
import spacy

import spacy_adf.pipeline.kernel_tagger  # noqa: F401  (registers the factory)
from tests.helpers.seg_data import char_nlp, make_sentences, seg_examples
from tests.pipeline.test_kernel_tagger import make_examples


def test_pke_segmenter_counts_the_documents_it_reads(capsys):
    nlp = char_nlp()
    nlp.add_pipe("pke_segmenter", config={"trainer": "online", "sigma": 0.0})
    nlp.initialize(lambda: seg_examples(nlp, make_sentences(30)))
    out = capsys.readouterr().out
    assert "[pke_segmenter] reading gold words: 30 documents in" in out
    assert "[pke_segmenter] features of" in out and "runs" in out
    # the reading lines come before the trainer's
    assert out.index("reading gold words") < out.index("online")


def test_pke_tagger_counts_the_label_scan(capsys):
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", name="chunker", config={"sigma": 0.0})
    train = make_examples(nlp, 25, seed=0)
    nlp.initialize(lambda: train)
    out = capsys.readouterr().out
    assert "[pke_tagger] scanning labels: 25 documents in" in out
    assert out.index("scanning labels") < out.index("reading gold decisions")
