"""The batched inference path of adf_tagger gives exactly what the per-Doc
path and the plain CRF definitions give: columns, feature ids, Viterbi
labels, written annotations."""
import pickle

import numpy
import pytest
import spacy
from spacy.attrs import ENT_IOB, ENT_TYPE, LOWER, ORTH, SHAPE, TAG
from spacy.strings import hash_string
from spacy.tokens import Doc, Span
from spacy.training import Example

from spacy_adf.core.crf import CRFModel
from spacy_adf.features.extract import FeatureTable, WordCache, template_hashes
from spacy_adf.features.presets import bioner_templates
from spacy_adf.features.templates import TemplateSet, ortho_class
from spacy_adf.optimizers.adf import ADF
from spacy_adf.pipeline.targets import _outside_split_spans, _typed, make_target
from spacy_adf.tags.iob import iob_to_spans
from tests.helpers.template_values import column_values

WORDS = ["IL-2", "gene", "expression", "in", "T", "cells", "requires", "NF-kappa", "B", ".",
         "Activation", "of", "the", "p50", "protein", "TNF-alpha", "induced", "Jurkat", "c-Rel",
         "and", "CD28", "mRNA", "levels", "were", "high", "in", "human", "monocytes", "(", ")"]
TAGS = ["NN", "NN", "NN", "IN", "NN", "NNS", "VBZ", "NN", "NN", ".", "NN", "IN", "DT", "NN",
        "NN", "NN", "VBN", "NNP", "NN", "CC", "NN", "NN", "NNS", "VBD", "JJ", "IN", "JJ", "NNS",
        "(", ")"]
ENTITY = {"IL-2": "protein", "NF-kappa": "protein", "p50": "protein", "TNF-alpha": "protein",
          "c-Rel": "protein", "CD28": "protein", "T": "cell_type", "monocytes": "cell_type",
          "Jurkat": "cell_line", "mRNA": "RNA"}


def corpus(vocab, n, seed):
    """Random sentences over WORDS with their tags; entities by word (a
    following "cells"/"gene" extends a cell_type/protein), as Examples."""
    rng = numpy.random.default_rng(seed)
    out = []
    for _ in range(n):
        idx = rng.integers(0, len(WORDS), size=int(rng.integers(1, 14)))
        words = [WORDS[i] for i in idx]
        tags = [TAGS[i] for i in idx]
        ents, i = [], 0
        while i < len(words):
            label = ENTITY.get(words[i])
            if label is None:
                i += 1
                continue
            end = i + 1
            if end < len(words) and words[end] in ("cells", "gene", "protein"):
                end += 1
            ents.append((i, end, label))
            i = end
        ref = Doc(vocab, words=words, tags=tags)
        ref.ents = [Span(ref, s, e, label=lab) for s, e, lab in ents]
        out.append(Example(Doc(vocab, words=words, tags=tags), ref))
    return out


@pytest.fixture(scope="module")
def trained():
    nlp = spacy.blank("en")
    templates = bioner_templates(pos=True, affixes=True, context=True)
    nlp.add_pipe("adf_tagger", name="ner", config={
        "target": "ents", "scheme": "BILUO",
        "model": {"@architectures": "spacy_adf.CRF.v1", "min_freq": 1, "state_features": "all",
                  "edge_features": "observed", "edge_templates": None,
                  "templates": templates}})
    examples = corpus(nlp.vocab, 120, 0)
    nlp.initialize(lambda: examples)
    optimizer = ADF(0.05, sigma=5.0)
    for _ in range(3):
        for eg in examples:
            nlp.update([eg], sgd=optimizer)
    return nlp


def reference_viterbi(crf: CRFModel, ptr, attrs) -> numpy.ndarray:
    """The Viterbi path by the kernel's definition, every score summed in
    Python floats (doubles) in the same order: state weights, then the start
    and end weights; transition, then each attribute's edge weights."""
    L = crf.n_labels
    w = crf.weights
    bp, codes, off = crf.block_ptr, crf.codes, crf.off_blocks
    n = len(ptr) - 1
    st = [[0.0] * L for _ in range(n)]
    for t in range(n):
        for a in attrs[ptr[t]:ptr[t + 1]]:
            for k in range(bp[a], bp[a + 1]):
                if codes[k] >= L:
                    break
                st[t][codes[k]] += float(w[off + k])
    for y in range(L):
        st[0][y] += float(w[L * L + y])
        st[n - 1][y] += float(w[L * L + L + y])
    delta = [st[0][:]]
    back = [[0] * L]
    for t in range(1, n):
        M = [float(x) for x in w[:L * L]]
        for a in attrs[ptr[t]:ptr[t + 1]]:
            for k in range(bp[a], bp[a + 1]):
                if codes[k] >= L:
                    M[codes[k] - L] += float(w[off + k])
        row, arg = [], []
        for y in range(L):
            best, best_y = -numpy.inf, 0
            for yp in range(L):
                v = delta[t - 1][yp] + M[yp * L + y]
                if v > best:
                    best, best_y = v, yp
            row.append(best + st[t][y])
            arg.append(best_y)
        delta.append(row)
        back.append(arg)
    best, y = -numpy.inf, 0
    for k in range(L):
        if delta[n - 1][k] > best:
            best, y = delta[n - 1][k], k
    out = [y]
    for t in range(n - 1, 0, -1):
        out.append(back[t][out[-1]])
    return numpy.array(out[::-1], dtype=numpy.int32)


def test_batch_featurize_and_viterbi_match_per_doc_reference(trained):
    ner = trained.get_pipe("ner")
    sc = ner.plain_model
    docs = [eg.predicted for eg in corpus(trained.vocab, 40, 1)]
    docs.insert(3, Doc(trained.vocab, words=[]))
    ss, ptr, attrs = sc.featurize(docs)
    crf = sc.params
    labels = crf.viterbi(ss, ptr, attrs)
    for i, doc in enumerate(docs):
        if not len(doc):
            assert ss[i + 1] == ss[i]
            continue
        # the training path: columns of one Doc, template hashes, table lookup
        p, a = sc.table.lookup(sc.templates.hashes(doc))
        lo, hi = ss[i], ss[i + 1]
        numpy.testing.assert_array_equal(ptr[lo:hi + 1] - ptr[lo], p)
        numpy.testing.assert_array_equal(attrs[ptr[lo]:ptr[hi]], a)
        numpy.testing.assert_array_equal(labels[lo:hi], reference_viterbi(crf, p, a))
    assert len(numpy.unique(labels)) > 2  # the model predicts entities


def test_annotations_match_the_plain_target_rules(trained):
    docs = [eg.predicted for eg in corpus(trained.vocab, 40, 2)]
    ner = trained.get_pipe("ner")
    preds = ner.predict(docs)
    names = ner.tag_names
    out = list(ner.pipe([d.copy() for d in docs]))
    for doc, (ids, _) in zip(out, preds):
        expected = doc.copy()
        tags = [names[i] for i in ids]
        expected.ents = [Span(expected, s, e, label=lab)
                         for s, e, lab in iob_to_spans([_typed(t) for t in tags])]
        numpy.testing.assert_array_equal(doc.to_array([ENT_IOB, ENT_TYPE]),
                                         expected.to_array([ENT_IOB, ENT_TYPE]))
    assert sum(len(d.ents) for d in out) > 0


def test_outside_split_spans_equal_iob_to_spans():
    rng = numpy.random.default_rng(0)
    tags = ["O", "B-X", "I-X", "L-X", "U-X", "B-Y", "I-Y", "L-Y", "U-Y", "B", "I", "L", "U"]
    for _ in range(2000):
        seq = [tags[i] for i in rng.integers(0, len(tags), size=int(rng.integers(0, 12)))]
        assert _outside_split_spans(seq) == iob_to_spans([_typed(t) for t in seq])


def test_tag_target_set_equals_token_setter():
    nlp = spacy.blank("en")
    words = ["a", "b", "c", "d"]
    tags = ["NN", "VB", "NN", "XYZ-new-tag"]
    doc = Doc(nlp.vocab, words=words, tags=["DT", "DT", "DT", "DT"])
    make_target("tag").set(doc, tags, None)
    ref = Doc(nlp.vocab, words=words, tags=["DT", "DT", "DT", "DT"])
    for token, tag in zip(ref, tags):
        token.tag_ = tag
    numpy.testing.assert_array_equal(doc.to_array([TAG]), ref.to_array([TAG]))
    assert [t.tag_ for t in doc] == tags


def test_columns_for_docs_match_column_definitions():
    nlp = spacy.blank("en")
    tset = TemplateSet(bioner_templates(pos=True, affixes=True, context=True))
    docs = [Doc(nlp.vocab, words=["IL-2", "gene", "in", "T", "cells"], tags=["NN", "NN", "IN", "NN", ""]),
            Doc(nlp.vocab, words=[]),
            Doc(nlp.vocab, words=["TNF-alpha", "IL-2", "x" * 30], tags=["NN", "NN", "FW"])]
    for rows in (1_000_000, 2):  # with a cache too small, the rest is computed every time
        tset._word_cache = WordCache(len(tset._word_cols), rows)
        for _ in range(2):  # filling, then reading the cache
            ss, cols = tset.columns_for_docs(docs)
            assert ss.tolist() == [0, 5, 5, 8]
            for i, doc in enumerate(docs):
                got = cols[ss[i]:ss[i + 1]]
                numpy.testing.assert_array_equal(got, tset.columns_for(doc))
                for j, name in enumerate(tset.columns):
                    for t, token in enumerate(doc):
                        text = token.text
                        if name == "w":
                            want = token.orth
                        elif name == "t":
                            want = token.tag
                        elif name == "lower":
                            want = token.lower
                        elif name == "shape":
                            want = token.shape
                        elif name == "ortho":
                            want = hash_string("ortho:" + ortho_class(text))
                        elif name.startswith("prefix"):
                            size = int(name[6:])
                            want = hash_string(f"prefix{size}:{text[:size]}")
                        else:
                            size = int(name[6:])
                            want = hash_string(f"suffix{size}:{text[-size:]}")
                        assert got[t, j] == want, (name, text)
        assert len(tset._word_cache) <= rows


def test_column_values_are_the_strings_behind_the_hashes():
    nlp = spacy.blank("en")
    tset = TemplateSet(bioner_templates(pos=True, affixes=True, context=True) + ["morph_Case[0]"])
    doc = Doc(nlp.vocab, words=["IL-2", "gene", "in", "T", "cells"], tags=["NN", "NN", "", "NN", "NNS"],
              morphs=["Case=Nom", "", "Case=Acc|Num=Sg", "", ""])
    cols = tset.columns_for(doc)
    values = column_values(tset, doc)
    for j, name in enumerate(tset.columns):
        for t in range(len(doc)):
            v = values[j][t]
            if v is None:
                assert cols[t, j] == 0, (name, t)
            elif name in ("w", "t", "lower", "shape"):
                assert cols[t, j] == nlp.vocab.strings[v]
            elif name == "ortho":
                assert cols[t, j] == hash_string("ortho:" + v)
            elif name.startswith("morph_"):
                assert cols[t, j] == hash_string(f"{name}:{v}")
            else:
                assert cols[t, j] == hash_string(f"{name}:{v}")
    assert values[tset.columns.index("t")][2] is None


def test_lookup_columns_equals_hashes_then_lookup():
    rng = numpy.random.default_rng(3)
    tset = TemplateSet(["w[-2]", "w[0]|t[0]", "t[-1]|t[0]|t[1]", "w[1]", "t[2]"])
    lengths = [0, 1, 5, 0, 3, 12]
    seq_starts = numpy.concatenate([[0], numpy.cumsum(lengths)]).astype(numpy.int64)
    cols = rng.integers(0, 6, size=(int(seq_starts[-1]), len(tset.columns))).astype(numpy.uint64)
    mats = [template_hashes(numpy.ascontiguousarray(cols[a:b]), tset.tcols, tset.toffs, tset.tlen,
                            tset.tseed) for a, b in zip(seq_starts[:-1], seq_starts[1:])]
    keys = numpy.unique(numpy.concatenate([m.ravel() for m in mats]))
    keys = keys[keys != 0]
    table = FeatureTable(rng.permutation(keys)[: len(keys) * 2 // 3])  # some unknown
    ptr, attrs = table.lookup_columns(cols, seq_starts, tset.tcols, tset.toffs, tset.tlen, tset.tseed)
    ref_ptr, ref_attrs = table.lookup(numpy.concatenate(mats))
    numpy.testing.assert_array_equal(ptr, ref_ptr)
    numpy.testing.assert_array_equal(attrs, ref_attrs)
    with pytest.raises(ValueError):
        table.lookup_columns(cols, seq_starts[:-1], tset.tcols, tset.toffs, tset.tlen, tset.tseed)
    # several sequences hashed in one call: the rows of each hashed alone
    stacked = tset.hash_columns(cols, seq_starts)
    numpy.testing.assert_array_equal(stacked, numpy.concatenate(mats))
    assert (tset.hash_columns(cols) != stacked).any()  # one sequence: other boundaries
    with pytest.raises(ValueError, match="seq_starts"):
        tset.hash_columns(cols, seq_starts[:-1])


def random_blocks(rng, L, n_attrs):
    """Blocks of every form the kernels distinguish: all or some state
    entries, no, some or all edge entries."""
    ptr, codes = [0], []
    for a in range(n_attrs):
        states = list(range(L)) if a % 3 else sorted(rng.choice(L, size=int(rng.integers(0, L)),
                                                                 replace=False).tolist())
        kind = a % 4
        pairs = ([] if kind == 0 else list(range(L * L)) if kind == 1
                 else sorted(rng.choice(L * L, size=int(rng.integers(1, L * L + 1)), replace=False).tolist()))
        codes.extend(states)
        codes.extend(L + p for p in pairs)
        ptr.append(len(codes))
    model = CRFModel(L, numpy.array(ptr), numpy.array(codes, dtype=numpy.uint16))
    model.set_weights(rng.normal(0, 1.0, model.n_weights).astype(numpy.float32))
    return model


@pytest.mark.parametrize("L", [1, 2, 5, 11])
def test_viterbi_equals_reference_on_every_block_form(L):
    rng = numpy.random.default_rng(L)
    model = random_blocks(rng, L, 24)
    for n in (1, 2, 7, 30):
        ptr = [0]
        attrs = []
        for _ in range(n):
            attrs.extend(rng.choice(24, size=int(rng.integers(0, 6)), replace=False).tolist())
            ptr.append(len(attrs))
        ptr = numpy.array(ptr, dtype=numpy.int64)
        attrs = numpy.array(attrs, dtype=numpy.int32)
        got = model.viterbi(numpy.array([0, n], dtype=numpy.int64), ptr, attrs)
        numpy.testing.assert_array_equal(got, reference_viterbi(model, ptr, attrs))


def test_word_cache_and_template_set_pickle():
    cache = WordCache(2)
    cache.add(12345, [7, 8])
    assert len(cache) == 1
    assert len(pickle.loads(pickle.dumps(cache))) == 0  # a cache pickles empty
    tset = TemplateSet(["prefix2[0]", "w[0]"])
    doc = Doc(spacy.blank("en").vocab, words=["alpha", "beta"])
    cols = tset.columns_for(doc)
    again = pickle.loads(pickle.dumps(tset))
    numpy.testing.assert_array_equal(again.columns_for(doc), cols)
