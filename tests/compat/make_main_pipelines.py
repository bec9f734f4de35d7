"""Write small trained pipelines of every spacy-adf component kind with the
code of the day, and their predictions, for test_main_pipelines.py; the
recipes here also train the pipelines of tests/pipeline/test_damaged_files.py.

The fixtures in saved_pipelines/ were written by this script and are
kept in the formats the package writes: a change that breaks reading them
breaks every pipeline users saved. Run from the repository root:

    python tests/compat/make_main_pipelines.py tests/compat/saved_pipelines

Self-contained on purpose (the public API and tiny data made here), so it
runs against any version of the package.
"""
import json
import random
import sys
from pathlib import Path

import spacy
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.optimizers.adf import ADF

CHUNKS = [
    (["the", "big", "dog", "barked"], ["DT", "JJ", "NN", "VBD"], [(0, 3, "NP")]),
    (["a", "cat", "saw", "the", "dog"], ["DT", "NN", "VBD", "DT", "NN"], [(0, 2, "NP"), (3, 5, "NP")]),
    (["dogs", "run"], ["NNS", "VBP"], [(0, 1, "NP")]),
    (["the", "old", "man", "saw", "a", "big", "cat"], ["DT", "JJ", "NN", "VBD", "DT", "JJ", "NN"],
     [(0, 3, "NP"), (4, 7, "NP")]),
]
CHUNK_TESTS = [
    (["the", "cat", "saw", "dogs"], ["DT", "NN", "VBD", "NNS"]),
    (["a", "big", "old", "dog", "ran"], ["DT", "JJ", "JJ", "NN", "VBD"]),
]
SEG_WORDS = ["中国", "人民", "银行", "北京", "我们", "发展", "经济", "今天", "天气", "很", "好", "的",
             "在", "是", "学生", "老师", "学校", "研究", "生命", "科学", "研究生", "大学"]
SEG_TESTS = ["我们在北京研究生命科学", "今天天气很好", "中国人民银行的学生", "", "  北京 大学  "]
POS_WORDS = ["great", "wonderful", "loved", "superb"]
NEG_WORDS = ["awful", "boring", "hated", "dull"]
FILLER = ["the", "book", "was", "a", "story", "read", "it", "this"]
TEXTCAT_TESTS = ["a great story", "this was boring", "the book"]


def _train(nlp, examples, epochs, lr=0.5):
    opt = ADF(lr, sigma=None, window=10)
    rng = random.Random(0)
    order = list(examples)
    for _ in range(epochs):
        rng.shuffle(order)
        for i in range(0, len(order), 2):
            nlp.update(order[i:i + 2], sgd=opt, losses={})
    return nlp


def tagger():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_tagger", config={"target": "spans:chunks", "model": {
        "@architectures": "spacy_adf.CRF.v1", "templates": ["w[0]", "t[-1]", "t[0]", "t[1]", "t[0]|t[1]"]}})
    egs = []
    for words, tags, spans in CHUNKS:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        egs.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    nlp.initialize(lambda: egs)
    return _train(nlp, egs, 20)


def tagger_predictions(nlp):
    out = []
    for words, tags in CHUNK_TESTS:
        doc = nlp(Doc(nlp.vocab, words=words, tags=tags))
        out.append([[s.start, s.end, s.label_] for s in doc.spans["chunks"]])
    return out


def _seg_examples(nlp, n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(SEG_WORDS) for _ in range(rng.randint(3, 8))]
        ref = Doc(nlp.vocab, words=words, spaces=[False] * len(words))
        out.append(Example(nlp.make_doc(ref.text), ref))
    return out


def segmenter():
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    nlp.add_pipe("adf_segmenter", config={"model": {"@architectures": "spacy_adf.SegmenterCRF.v1",
                                                     "lexicon_folds": 2}})
    egs = _seg_examples(nlp, 60, 0)
    nlp.initialize(lambda: egs)
    nlp.get_pipe("adf_segmenter").add_words(["生命科学"])
    return _train(nlp, egs, 5, lr=0.1)


def words(nlp, texts):
    return [[(t.text, t.whitespace_) for t in nlp(text)] for text in texts]


def segmenter_tokenizer(seg_dir, tokenizer="spacy_adf.Segmenter.v1"):
    """A pipeline whose tokenizer (`spacy_adf.Segmenter.v1`, or
    `spacy_adf.KernelSegmenter.v1`) carries the segmenter saved at seg_dir."""
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": tokenizer}},
                                    "initialize": {"tokenizer": {"segmenter_model": str(seg_dir)}}})
    nlp.initialize()
    return nlp


def textcat():
    nlp = spacy.blank("en")
    nlp.add_pipe("adf_textcat")
    rng = random.Random(0)
    egs = []
    for i in range(30):
        label = "positive" if i % 2 == 0 else "negative"
        ws = rng.sample(FILLER, 4) + [rng.choice(POS_WORDS if label == "positive" else NEG_WORDS)]
        rng.shuffle(ws)
        ref = Doc(nlp.vocab, words=ws)
        ref.cats = {"positive": float(label == "positive"), "negative": float(label == "negative")}
        egs.append(Example(Doc(nlp.vocab, words=ws), ref))
    nlp.initialize(lambda: egs)
    return _train(nlp, egs, 10)


def _knp(n, seed):
    nouns = ["本", "友達", "学校", "先生", "映画"]
    verbs = ["読む", "書く", "見る"]
    rng = random.Random(seed)

    def m(surface, pos, sub="*", ctype="*", cform="*"):
        return f"{surface} {surface} {surface} {pos} 1 {sub} 1 {ctype} 0 {cform} 0 NIL"

    lines = []
    for s in range(n):
        bunsetsu, heads = [], []
        for _ in range(rng.randint(1, 3)):
            for _ in range(rng.randint(0, 2)):
                bunsetsu.append([m(rng.choice(nouns), "名詞", "普通名詞"), m("の", "助詞", "接続助詞")])
                heads.append(len(bunsetsu))
            bunsetsu.append([m(rng.choice(nouns), "名詞", "普通名詞"), m(rng.choice("がをに"), "助詞", "格助詞")])
            heads.append(None)
        final = len(bunsetsu)
        bunsetsu.append([m(rng.choice(verbs), "動詞", "*", "子音動詞", "基本形"), m("。", "特殊", "句点")])
        heads = [final if h is None else h for h in heads] + [-1]
        lines.append(f"# S-ID:{seed}-{s} KNP:test")
        for morphs, head in zip(bunsetsu, heads):
            lines.append(f"* {head}D")
            lines.extend(morphs)
        lines.append("EOS")
    return "\n".join(lines) + "\n"


def _bunsetsu_docs(nlp, path):
    reader = spacy.registry.readers.get("spacy_adf.BunsetsuCorpus.v1")(path)
    return [eg.reference for eg in reader(nlp)]


def dependency(tmp):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "sigma": 0.0})
    (tmp / "train.knp").write_text(_knp(60, 0), encoding="utf8")
    egs = [Example(_unparsed(ref), ref) for ref in _bunsetsu_docs(nlp, tmp / "train.knp")]
    nlp.initialize(lambda: egs)
    return nlp


def _unparsed(ref):
    """The reference's words, POS, morph and bunsetsu spans, without heads."""
    doc = Doc(ref.vocab, words=[t.text for t in ref], spaces=[bool(t.whitespace_) for t in ref],
              pos=[t.pos_ for t in ref], tags=[t.tag_ for t in ref], morphs=[str(t.morph) for t in ref],
              lemmas=[t.lemma_ for t in ref])
    doc.spans["bunsetsu"] = [Span(doc, s.start, s.end, label=s.label_) for s in ref.spans["bunsetsu"]]
    return doc


def dependency_predictions(nlp, tmp):
    (tmp / "test.knp").write_text(_knp(15, 7), encoding="utf8")
    docs = [nlp(_unparsed(ref)) for ref in _bunsetsu_docs(nlp, tmp / "test.knp")]
    return [[list(map(int, d.spans["bunsetsu"].attrs["heads"])), [t.head.i for t in d]] for d in docs]


PKE_CHUNKS = CHUNKS * 3


def pke_tagger():
    nlp = spacy.blank("en")
    nlp.add_pipe("pke_tagger", config={"degree": 2, "sigma": 0.0, "C": 10.0})
    egs = []
    for words, tags, spans in PKE_CHUNKS:
        ref = Doc(nlp.vocab, words=words, tags=tags)
        ref.spans["chunks"] = [Span(ref, s, e, label=l) for s, e, l in spans]
        egs.append(Example(Doc(nlp.vocab, words=words, tags=tags), ref))
    nlp.initialize(lambda: egs)
    return nlp


def pke_segmenter():
    nlp = spacy.blank("zh", config={"nlp": {"tokenizer": {"@tokenizers": "spacy_adf.CharTokenizer.v1"}}})
    nlp.add_pipe("pke_segmenter", config={"trainer": "libsvm", "classifier": "pke", "sigma": 0.0, "degree": 2})
    egs = _seg_examples(nlp, 60, 0)
    nlp.initialize(lambda: egs)
    return nlp


def main(out_dir: Path) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    tmp = out_dir / "_knp"
    tmp.mkdir(exist_ok=True)
    expected = {}
    nlp = tagger()
    nlp.to_disk(out_dir / "tagger")
    expected["tagger"] = tagger_predictions(nlp)
    nlp = segmenter()
    nlp.to_disk(out_dir / "segmenter")
    expected["segmenter"] = words(nlp, SEG_TESTS)
    fast = segmenter_tokenizer(out_dir / "segmenter")
    fast.to_disk(out_dir / "segmenter_tokenizer")
    expected["segmenter_tokenizer"] = words(fast, SEG_TESTS)
    nlp = textcat()
    nlp.to_disk(out_dir / "textcat")
    expected["textcat"] = [nlp(t).cats for t in TEXTCAT_TESTS]
    nlp = dependency(tmp)
    nlp.to_disk(out_dir / "dependency")
    expected["dependency"] = dependency_predictions(nlp, tmp)
    nlp = pke_tagger()
    nlp.to_disk(out_dir / "pke_tagger")
    expected["pke_tagger"] = tagger_predictions(nlp)
    nlp = pke_segmenter()
    nlp.to_disk(out_dir / "pke_segmenter")
    expected["pke_segmenter"] = words(nlp, SEG_TESTS)
    fast = segmenter_tokenizer(out_dir / "pke_segmenter", "spacy_adf.KernelSegmenter.v1")
    fast.to_disk(out_dir / "pke_segmenter_tokenizer")
    expected["pke_segmenter_tokenizer"] = words(fast, SEG_TESTS)
    for f in tmp.iterdir():
        f.unlink()
    tmp.rmdir()
    (out_dir / "expected.json").write_text(json.dumps(expected, ensure_ascii=False, indent=1), encoding="utf8")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
