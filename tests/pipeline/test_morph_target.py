"""adf_tagger's morph targets ("morph:FIELD[,FIELD...]") and
ja_tags_from_morph: labels, merging into token.morph, learning a tiny set,
serialization, and errors."""
import pytest
import spacy
from spacy.tokens import Doc
from spacy.training import Example

from spacy_adf.corpora.bunsetsu import BunsetsuCorpus
from spacy_adf.lang.ja.pos import juman_upos, make_tag
from spacy_adf.pipeline.targets import NO_MORPH, make_target
from tests.helpers.reference_targets import set_morph_reference

SENTS = [
    (["本", "を", "読む", "。"], ["SrcPos=名詞|SrcSubPos=普通名詞", "SrcPos=助詞|SrcSubPos=格助詞",
                               "SrcPos=動詞|ConjType=子音動詞マ行|ConjForm=基本形", "SrcPos=特殊|SrcSubPos=句点"]),
    (["手紙", "を", "書いた"], ["SrcPos=名詞|SrcSubPos=普通名詞", "SrcPos=助詞|SrcSubPos=格助詞",
                              "SrcPos=動詞|ConjType=子音動詞カ行促音便形|ConjForm=タ形"]),
    (["読む", "本"], ["SrcPos=動詞|ConjType=子音動詞マ行|ConjForm=基本形", "SrcPos=名詞|SrcSubPos=普通名詞"]),
]


def examples(nlp):
    out = []
    for words, morphs in SENTS:
        ref = Doc(nlp.vocab, words=words, spaces=[False] * len(words), morphs=morphs)
        out.append(Example(Doc(nlp.vocab, words=words, spaces=[False] * len(words)), ref))
    return out


def test_labels_and_missing():
    nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy.Tokenizer.v1"}}})
    eg = examples(nlp)[0]
    pos = make_target("morph:SrcPos,SrcSubPos")
    conj = make_target("morph:ConjType,ConjForm")
    assert pos.gold(eg) == ["SrcPos=名詞|SrcSubPos=普通名詞", "SrcPos=助詞|SrcSubPos=格助詞",
                            "SrcPos=動詞", "SrcPos=特殊|SrcSubPos=句点"]
    assert conj.gold(eg) == [NO_MORPH, NO_MORPH, "ConjType=子音動詞マ行|ConjForm=基本形", NO_MORPH]
    # a reference without any morph analysis is unknown, not "no value"
    bare = Example(Doc(nlp.vocab, words=["本"]), Doc(nlp.vocab, words=["本"]))
    assert conj.gold(bare) == [None]
    assert pos.score_weights == {"morph_SrcPos_SrcSubPos_acc": 1.0}


def test_set_merges_fields_and_keeps_the_others():
    nlp = spacy.blank("en")
    doc = Doc(nlp.vocab, words=["a", "b"], morphs=["ConjForm=タ形", ""])
    make_target("morph:SrcPos,SrcSubPos").set(doc, ["SrcPos=動詞", NO_MORPH], None)
    assert doc[0].morph.to_dict() == {"SrcPos": "動詞", "ConjForm": "タ形"}
    assert str(doc[1].morph) == ""
    make_target("morph:ConjForm").set(doc, [NO_MORPH, "ConjForm=基本形"], None)
    assert doc[0].morph.to_dict() == {"SrcPos": "動詞"}
    assert doc[1].morph.to_dict() == {"ConjForm": "基本形"}


def test_set_by_keys_equals_the_token_by_token_reference():
    """`set` (merged keys, one MORPH column write) against `set_morph_reference`
    on random analyses and labels, over two vocabs (the merge cache is per
    vocab), a pickled copy, an empty Doc and a wrong label count."""
    import pickle
    import random

    rng = random.Random(3)
    values = {"SrcPos": ["名詞", "動詞", "助詞"], "SrcSubPos": ["普通名詞", "格助詞"],
              "ConjType": ["子音動詞マ行"], "ConjForm": ["基本形", "タ形"]}

    def analysis():
        return "|".join(sorted(f"{k}={rng.choice(v)}" for k, v in values.items() if rng.random() < 0.5))

    for spec in ("morph:SrcPos,SrcSubPos", "morph:ConjForm"):
        target = make_target(spec)
        labels = [NO_MORPH] + [a for a in (analysis() for _ in range(30)) if a and
                               all(p.split("=")[0] in target.fields for p in a.split("|"))]
        for vocab_round in range(2):
            nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy.Tokenizer.v1"}}})
            for _ in range(40):
                n = rng.randint(1, 8)
                words = [f"w{i}" for i in range(n)]
                morphs = [analysis() for _ in range(n)]
                tags = [rng.choice(labels) for _ in range(n)]
                fast = Doc(nlp.vocab, words=words, morphs=morphs)
                slow = Doc(nlp.vocab, words=words, morphs=morphs)
                target.set(fast, tags, None)
                set_morph_reference(target, slow, tags)
                assert [str(t.morph) for t in fast] == [str(t.morph) for t in slow]
                assert [t.has_morph() for t in fast] == [t.has_morph() for t in slow]
            target = pickle.loads(pickle.dumps(target))
        empty = Doc(nlp.vocab, words=[])
        target.set(empty, [], None)
        with pytest.raises(ValueError, match="labels for a Doc"):
            target.set(Doc(nlp.vocab, words=["a"]), [], None)


@pytest.mark.parametrize("spec", ["morph:", "morph:A,,B", "morph:A B", "morph:A,A"])
def test_bad_specs(spec):
    with pytest.raises(ValueError, match="morph"):
        make_target(spec)


def test_covering_is_rejected():
    with pytest.raises(ValueError, match="covering"):
        make_target("morph:SrcPos", covering=True)


def test_taggers_learn_a_tiny_set_and_round_trip():
    nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy.Tokenizer.v1"}}})
    nlp.add_pipe("adf_tagger", name="morph_pos", config={"target": "morph:SrcPos,SrcSubPos"})
    nlp.add_pipe("adf_tagger", name="morph_conj", config={"target": "morph:ConjType,ConjForm"})
    nlp.add_pipe("ja_tags_from_morph")
    egs = examples(nlp)
    optimizer = nlp.initialize(lambda: egs)
    for _ in range(30):
        nlp.update(egs, sgd=optimizer)
    scores = nlp.evaluate(egs)
    assert scores["morph_SrcPos_SrcSubPos_acc"] == 1.0
    assert scores["morph_ConjType_ConjForm_acc"] == 1.0
    docs = [nlp(Doc(nlp.vocab, words=w, spaces=[False] * len(w))) for w, _ in SENTS]
    for doc, (_, morphs) in zip(docs, SENTS):
        assert [t.morph.to_dict() for t in doc] == [dict(p.split("=") for p in m.split("|")) for m in morphs]
        for token in doc:
            feats = token.morph.to_dict()
            assert token.tag_ == make_tag(feats["SrcPos"], feats.get("SrcSubPos", "*"))
            assert token.pos_ == juman_upos(feats["SrcPos"], feats.get("SrcSubPos", ""))
    nlp2 = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy.Tokenizer.v1"}}})
    for name in ("morph_pos", "morph_conj"):
        nlp2.add_pipe("adf_tagger", name=name, config={"target": nlp.get_pipe(name).cfg["target"]})
    nlp2.add_pipe("ja_tags_from_morph")
    nlp2.from_bytes(nlp.to_bytes())
    again = [nlp2(Doc(nlp2.vocab, words=w, spaces=[False] * len(w))) for w, _ in SENTS]
    assert [[str(t.morph) for t in d] for d in again] == [[str(t.morph) for t in d] for d in docs]


def test_ja_tags_rejects_an_unknown_tagset():
    nlp = spacy.blank("en")
    with pytest.raises(ValueError, match="tagset"):
        nlp.add_pipe("ja_tags_from_morph", config={"tagset": "ipadic"})


def test_bunsetsu_corpus_without_predicted_tags(dep_corpus):
    nlp = spacy.blank("ja", config={"nlp": {"tokenizer": {"@tokenizers": "spacy.Tokenizer.v1"}}})
    eg = next(iter(BunsetsuCorpus(dep_corpus / "dev.knp", predicted_tags=False, predicted_bunsetsu=False)(nlp)))
    assert [t.text for t in eg.predicted] == [t.text for t in eg.reference]
    assert not eg.predicted.has_annotation("TAG") and not eg.predicted.has_annotation("MORPH")
    assert eg.reference.has_annotation("MORPH")
