"""Training on what the component will see (issue 27 item 2, the Japanese
side): gold heads projected onto predicted bunsetsu (`project_heads`), the
training reference made of jack-knifed annotation (`predicted_reference`),
and `spacy_adf.BunsetsuCorpus.v1` reading jack-knifed DocBins."""
import pytest
from spacy.tokens import DocBin
from spacy.vocab import Vocab

from spacy_adf.corpora.bunsetsu import BunsetsuCorpus, bunsetsu_docs, make_predicted
from spacy_adf.corpora.bunsetsu_doc import predicted_reference, project_heads
from spacy_adf.lang.ja.bunsetsu import BUNSETSU_KEY, check_bunsetsu_heads

GOLD_BOUNDS = [(0, 2), (2, 4), (4, 6), (6, 8)]
GOLD_HEADS = [2, 2, 3, -1]


def test_equal_bunsetsu_give_the_gold_heads():
    assert project_heads(GOLD_BOUNDS, GOLD_HEADS, GOLD_BOUNDS) == GOLD_HEADS


def test_a_split_bunsetsu_chains_to_its_last_piece():
    # gold bunsetsu 2 (tokens 4-5) split in two: 4 | 5
    pred = [(0, 2), (2, 4), (4, 5), (5, 6), (6, 8)]
    # modifiers of gold 2 attach to its last piece (3), the first piece to the next
    assert project_heads(GOLD_BOUNDS, GOLD_HEADS, pred) == [3, 3, 3, 4, -1]


def test_merged_bunsetsu_take_the_arc_of_their_last_gold_bunsetsu():
    # gold 0 and 1 merged: the piece stands for gold 1 (head 2)
    assert project_heads(GOLD_BOUNDS, GOLD_HEADS, [(0, 4), (4, 6), (6, 8)]) == [1, 2, -1]
    # everything merged: one root
    assert project_heads(GOLD_BOUNDS, GOLD_HEADS, [(0, 8)]) == [-1]


def test_projected_heads_are_always_a_valid_tree():
    import random

    rng = random.Random(0)
    for _ in range(300):
        n = rng.randint(1, 12)
        cuts = sorted(rng.sample(range(1, n), rng.randint(0, n - 1))) if n > 1 else []
        gold = list(zip([0] + cuts, cuts + [n]))
        heads = [rng.randint(i + 1, len(gold) - 1) for i in range(len(gold) - 1)] + [-1]
        # make them projective by repairing
        from spacy_adf.lang.ja.bunsetsu import repair_bunsetsu_heads

        heads = repair_bunsetsu_heads(heads)
        pcuts = sorted(rng.sample(range(1, n), rng.randint(0, n - 1))) if n > 1 else []
        pred = list(zip([0] + pcuts, pcuts + [n]))
        got = project_heads(gold, heads, pred)
        assert check_bunsetsu_heads(got) is None, (gold, heads, pred, got)
        if pred == gold:
            assert got == heads


def test_bounds_that_do_not_cover_the_tokens_are_an_error():
    with pytest.raises(ValueError, match="do not cover"):
        project_heads(GOLD_BOUNDS, GOLD_HEADS, [(0, 4)])


@pytest.fixture(scope="module")
def gold(dep_corpus):
    vocab = Vocab()
    return vocab, list(bunsetsu_docs(dep_corpus / "dev.knp", vocab))


def _jackknifed(reference, bounds):
    """A 'predicted' Doc: the gold words, other tags, the given bunsetsu."""
    doc = make_predicted(reference, predicted_bunsetsu=False, predicted_tags=False)
    for t in doc:
        t.tag_ = "予測-" + reference[t.i].tag_
        t.pos_ = "NOUN"
    doc.spans[BUNSETSU_KEY] = [doc[a:b] for a, b in bounds]
    return doc


def test_predicted_reference_keeps_words_takes_predicted_tags_and_bunsetsu(gold):
    vocab, refs = gold
    ref = next(r for r in refs if len(r.spans[BUNSETSU_KEY]) >= 3)
    spans = ref.spans[BUNSETSU_KEY]
    merged = [(spans[0].start, spans[1].end)] + [(s.start, s.end) for s in list(spans)[2:]]
    seen = _jackknifed(ref, merged)
    out = predicted_reference(ref, seen)
    assert [t.text for t in out] == [t.text for t in ref]
    assert [t.tag_ for t in out] == [t.tag_ for t in seen]
    assert [(s.start, s.end) for s in out.spans[BUNSETSU_KEY]] == merged
    gold_bounds = [(s.start, s.end) for s in spans]
    assert out.spans[BUNSETSU_KEY].attrs["heads"] == project_heads(gold_bounds, spans.attrs["heads"], merged)
    kept = predicted_reference(ref, seen, use_bunsetsu=False)
    assert [(s.start, s.end) for s in kept.spans[BUNSETSU_KEY]] == gold_bounds
    assert kept.spans[BUNSETSU_KEY].attrs["heads"] == list(spans.attrs["heads"])
    other = _jackknifed(refs[1], [(0, len(refs[1]))])
    if [t.text for t in other] != [t.text for t in ref]:
        with pytest.raises(ValueError, match="other tokens"):
            predicted_reference(ref, other)


def test_reader_pairs_jackknifed_docs(gold, dep_corpus, tmp_path):
    import spacy

    vocab, refs = gold
    db = DocBin(store_user_data=True)
    for ref in refs:
        db.add(_jackknifed(ref, [(0, len(ref))]))  # a chunker that saw one bunsetsu per sentence
    db.to_disk(tmp_path / "jk.spacy")
    nlp = spacy.blank("xx")
    parser_egs = list(BunsetsuCorpus(dep_corpus / "dev.knp", jackknifed=tmp_path / "jk.spacy")(nlp))
    assert len(parser_egs) == len(refs)
    for eg in parser_egs:
        assert len(eg.reference.spans[BUNSETSU_KEY]) == 1
        assert eg.reference.spans[BUNSETSU_KEY].attrs["heads"] == [-1]
        assert all(t.tag_.startswith("予測-") for t in eg.reference)
        assert [(s.start, s.end) for s in eg.predicted.spans[BUNSETSU_KEY]] == [(0, len(eg.reference))]
    chunker_egs = list(BunsetsuCorpus(dep_corpus / "dev.knp", predicted_bunsetsu=False,
                                      jackknifed=tmp_path / "jk.spacy")(nlp))
    for eg, ref in zip(chunker_egs, refs):
        assert all(t.tag_.startswith("予測-") for t in eg.predicted)
        assert BUNSETSU_KEY not in eg.predicted.spans
        assert len(eg.reference.spans[BUNSETSU_KEY]) == len(ref.spans[BUNSETSU_KEY])
    # a sentence missing from the jack-knifed Docs is named
    short = DocBin(store_user_data=True, docs=[_jackknifed(refs[0], [(0, len(refs[0]))])])
    short.to_disk(tmp_path / "short.spacy")
    with pytest.raises(ValueError, match="not in the jack-knifed Docs"):
        list(BunsetsuCorpus(dep_corpus / "dev.knp", jackknifed=tmp_path / "short.spacy")(nlp))
    with pytest.raises(ValueError, match="does not exist"):
        BunsetsuCorpus(dep_corpus / "dev.knp", jackknifed=tmp_path / "missing.spacy")


def test_reader_takes_several_files(dep_corpus):
    import spacy

    nlp = spacy.blank("xx")
    one = list(BunsetsuCorpus(dep_corpus / "dev.knp")(nlp))
    both = list(BunsetsuCorpus(f"{dep_corpus / 'dev.knp'},{dep_corpus / 'train.knp'}")(nlp))
    listed = list(BunsetsuCorpus([dep_corpus / "dev.knp", dep_corpus / "train.knp"])(nlp))
    assert len(both) == len(listed) == len(one) + len(list(BunsetsuCorpus(dep_corpus / "train.knp")(nlp)))
    assert [eg.reference.text for eg in both[:len(one)]] == [eg.reference.text for eg in one]
    assert len(list(BunsetsuCorpus([dep_corpus / "dev.knp", dep_corpus / "train.knp"], limit=50)(nlp))) == 50
    with pytest.raises(ValueError, match="does not exist"):
        BunsetsuCorpus(f"{dep_corpus / 'dev.knp'},{dep_corpus / 'nope.knp'}")
    with pytest.raises(ValueError, match="empty"):
        BunsetsuCorpus(f"{dep_corpus / 'dev.knp'},")


SAME_TEXT_KNP = """# S-ID:a-1
* -1D
+ -1D
慶尚 けいしょう 慶尚 名詞 6 地名 4 * 0 * 0 NIL
道 どう 道 名詞 6 普通名詞 1 * 0 * 0 NIL
地方 ちほう 地方 名詞 6 普通名詞 1 * 0 * 0 NIL
EOS
# S-ID:b-1
* -1D
+ -1D
慶尚道 けいしょうどう 慶尚道 名詞 6 地名 4 * 0 * 0 NIL
地方 ちほう 地方 名詞 6 普通名詞 1 * 0 * 0 NIL
EOS
"""


def test_same_text_other_tokens_pair_by_sentence_id_through_the_jackknife_files(tmp_path):
    """Two gold sentences of one text but other tokens (KU Wikipedia has
    three such texts): the fold DocBins and their join keep the S-IDs, so
    each gold sentence meets its own jack-knifed copy."""
    import spacy

    from spacy_adf.corpora.jackknifed import join_folds

    (tmp_path / "same.knp").write_text(SAME_TEXT_KNP, encoding="utf8")
    vocab = Vocab()
    refs = list(bunsetsu_docs(tmp_path / "same.knp", vocab))
    assert refs[0].text == refs[1].text and len(refs[0]) != len(refs[1])
    for k, ref in enumerate(refs):  # one sentence per fold, as the jack-knife writes them
        seen = _jackknifed(ref, [(0, len(ref))])
        assert seen.user_data["sent_id"] == ref.user_data["sent_id"]
        DocBin(store_user_data=True, docs=[seen]).to_disk(tmp_path / f"fold{k}.spacy")
    join_folds([tmp_path / "fold0.spacy", tmp_path / "fold1.spacy"]).to_disk(tmp_path / "all.spacy")
    egs = list(BunsetsuCorpus(tmp_path / "same.knp", jackknifed=tmp_path / "all.spacy")(spacy.blank("xx")))
    assert [len(eg.reference) for eg in egs] == [3, 2]
