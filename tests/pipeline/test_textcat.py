"""adf_textcat: the MaxEnt core, n-gram features, the Blitzer reader, the
component (training, serialization, errors) and the scorer."""
import math
import random
from pathlib import Path

import numpy
import pytest
import spacy
import srsly
from spacy.tokens import Doc
from spacy.training import Example
from spacy.util import fix_random_seed
from thinc.api import SGD as ThincSGD

from spacy_adf.core.adf import SparseADF
from spacy_adf.core.maxent import MaxEntModel, train_maxent_online
from spacy_adf.core.params import SparseGrad
from spacy_adf.corpora.blitzer import BlitzerCorpus, create_blitzer_reader, parse_line
from spacy_adf.features.ngrams import FEATURES_KEY, NgramFeaturizer
from spacy_adf.optimizers.adf import ADF
from spacy_adf.scorers.textcat import textcat_score

from tests.helpers.crf import occurrences
from tests.helpers.dense_adf import DenseADFReference, group_of_weights


# ---------------------------------------------------------------- helpers

def random_csr(rng, n_samples, n_features, max_active=5):
    lengths = rng.integers(0, max_active + 1, n_samples)
    ptr = numpy.zeros(n_samples + 1, dtype=numpy.int64)
    ptr[1:] = numpy.cumsum(lengths)
    ids = rng.integers(0, n_features, int(ptr[-1])).astype(numpy.int32)
    vals = rng.uniform(0.2, 2.0, int(ptr[-1])).astype(numpy.float32)
    return ptr, ids, vals


def dense_x(ptr, ids, vals, n_features):
    X = numpy.zeros((len(ptr) - 1, n_features))
    for i in range(len(ptr) - 1):
        for j in range(ptr[i], ptr[i + 1]):
            X[i, ids[j]] += vals[j]
    return X


def numpy_loglik_grad(w, X, y, L):
    """Reference log-likelihood gradient in the MaxEnt weight layout."""
    W = w[L:].reshape(-1, L)
    S = w[:L][None, :] + X @ W
    S = S - S.max(1, keepdims=True)
    P = numpy.exp(S) / numpy.exp(S).sum(1, keepdims=True)
    R = -P
    R[numpy.arange(len(y)), y] += 1.0
    g = numpy.concatenate([R.sum(0), (X.T @ R).ravel()])
    return float(numpy.log(P[numpy.arange(len(y)), y]).sum()), g


POS_WORDS = ["great", "wonderful", "superb", "loved", "excellent"]
NEG_WORDS = ["awful", "boring", "terrible", "hated", "poor"]
FILLER = ["the", "book", "was", "a", "story", "read", "it", "this"]


def synthetic_texts(n=40, seed=0):
    rng = random.Random(seed)
    out = []
    for i in range(n):
        label = "positive" if i % 2 == 0 else "negative"
        cue = POS_WORDS if label == "positive" else NEG_WORDS
        words = rng.sample(FILLER, 4) + [rng.choice(cue)] + rng.sample(FILLER, 2)
        rng.shuffle(words)
        out.append((words, label))
    return out


def make_nlp(**model):
    nlp = spacy.blank("en")
    cfg = {"model": {"@architectures": "spacy_adf.MaxEntTextcat.v1", **model}} if model else {}
    nlp.add_pipe("adf_textcat", config=cfg)
    return nlp


def examples_for(nlp, data):
    out = []
    for words, label in data:
        ref = Doc(nlp.vocab, words=words)
        ref.cats = {"positive": float(label == "positive"), "negative": float(label == "negative")}
        out.append(Example(Doc(nlp.vocab, words=words), ref))
    return out


def train(nlp, examples, epochs=20, sgd=None, seed=0, batch=4):
    sgd = sgd or ADF(0.5, sigma=None, window=10)
    rng = random.Random(seed)
    order = list(examples)
    losses = []
    for _ in range(epochs):
        rng.shuffle(order)
        ep = {}
        for i in range(0, len(order), batch):
            nlp.update(order[i:i + batch], sgd=sgd, losses=ep)
        losses.append(ep["adf_textcat"])
    return sgd, losses


def write_review_files(tmp_path, n_per_class=20, extra_lines=None):
    d = tmp_path / "books"
    d.mkdir()
    for label, cue in (("positive", "great"), ("negative", "awful")):
        lines = []
        for i in range(n_per_class):
            lines.append(f"the:2 {cue}:1 book_{i}:1 the_{cue}:1 w{i}:1 #label#:{label}")
        if extra_lines and label in extra_lines:
            lines.extend(extra_lines[label])
        (d / f"{label}.review").write_text("\n".join(lines) + "\n", encoding="utf8")
    return d


# ---------------------------------------------------------------- core

def test_gradient_matches_finite_differences():
    rng = numpy.random.default_rng(0)
    L, F = 3, 7
    model = MaxEntModel(L, F)
    ptr, ids, vals = random_csr(rng, 6, F)
    gold = rng.integers(0, L, 6).astype(numpy.int32)
    w = rng.normal(0, 0.5, model.n_weights)
    f0, g = model.dense_objective(w, ptr, ids, vals, gold)
    eps = 1e-6
    num = numpy.zeros_like(w)
    for k in range(len(w)):
        wp, wm = w.copy(), w.copy()
        wp[k] += eps
        wm[k] -= eps
        num[k] = (model.dense_objective(wp, ptr, ids, vals, gold)[0]
                  - model.dense_objective(wm, ptr, ids, vals, gold)[0]) / (2 * eps)
    numpy.testing.assert_allclose(g, num, atol=1e-7, rtol=1e-6)
    f_ref, g_ref = numpy_loglik_grad(w, dense_x(ptr, ids, vals, F), gold, L)
    assert f0 == pytest.approx(f_ref, rel=1e-12)
    numpy.testing.assert_allclose(g, g_ref, atol=1e-12)


def test_sparse_gradient_and_proba_match_dense_path():
    rng = numpy.random.default_rng(1)
    L, F = 4, 9
    model = MaxEntModel(L, F, rng.normal(0, 1, L * (F + 1)).astype(numpy.float32))
    ptr, ids, vals = random_csr(rng, 8, F)
    gold = rng.integers(0, L, 8).astype(numpy.int32)
    grad = SparseGrad(model)
    ll = model.accumulate_gradient(ptr, ids, vals, gold, grad)
    ll_d, g_d = model.dense_objective(model.weights.astype(numpy.float64), ptr, ids, vals, gold)
    assert ll == pytest.approx(ll_d, rel=1e-12)
    numpy.testing.assert_allclose(grad.to_dense(), g_d, atol=1e-12)
    assert grad.n_samples == 8
    # a group's occurrence count is the number of samples containing it
    occ = occurrences(grad)
    assert occ[0] == 8
    for f in range(F):
        n = sum(f in set(ids[ptr[i]:ptr[i + 1]].tolist()) for i in range(8))
        assert occ.get(f + 1, 0) == n
    P = model.predict_proba(ptr, ids, vals)
    S = model.weights[:L].astype(numpy.float64) + dense_x(ptr, ids, vals, F) @ model.weights[L:].reshape(F, L).astype(numpy.float64)
    ref = numpy.exp(S - S.max(1, keepdims=True))
    numpy.testing.assert_allclose(P, ref / ref.sum(1, keepdims=True), rtol=1e-6)
    numpy.testing.assert_allclose(P.sum(1), 1.0, atol=1e-12)


def test_softmax_is_stable_for_huge_scores():
    model = MaxEntModel(2, 1, numpy.array([0, 0, 1e30, -1e30], dtype=numpy.float32))
    P = model.predict_proba([0, 1], [0], [1.0])
    assert numpy.isfinite(P).all() and P[0, 0] == 1.0


@pytest.mark.parametrize("batch", [1, 3])
def test_online_loop_matches_dense_reference(batch):
    rng = numpy.random.default_rng(2)
    L, F, n = 3, 12, 40
    ptr, ids, vals = random_csr(rng, n, F, max_active=4)
    gold = rng.integers(0, L, n).astype(numpy.int32)
    model = MaxEntModel(L, F)
    kw = dict(c=0.3, alpha=0.9, beta=0.5, window=7, inv_n_sigma2=0.002)
    state = SparseADF(model, **kw)
    grad = SparseGrad(model)
    total = train_maxent_online(model, state, grad, ptr, ids, vals, gold, minibatch=batch)
    state.flush()
    ref = DenseADFReference(model.n_weights, group_of_weights(L, numpy.arange(F + 1) * L), **kw)
    X = dense_x(ptr, ids, vals, F)
    ref_total = 0.0
    for i in range(0, n, batch):
        rows = list(range(i, min(i + batch, n)))
        ll, g = numpy_loglik_grad(ref.w, X[rows], gold[rows], L)
        ref_total += ll
        groups = [{0} | {int(a) + 1 for a in ids[ptr[r]:ptr[r + 1]]} for r in rows]
        ref.update(g, groups)
    assert numpy.abs(ref.w).max() > 0.05
    numpy.testing.assert_allclose(model.weights, ref.w, atol=2e-5, rtol=1e-4)
    numpy.testing.assert_allclose(state.learning_rates(), ref.gamma, rtol=1e-5)
    assert total == pytest.approx(ref_total, rel=1e-4)
    assert state.n_updates == -(-n // batch)


def test_perceptron_separates_separable_data():
    rng = numpy.random.default_rng(3)
    L, F, n = 3, 30, 90
    true_w = rng.normal(0, 1, (F, L))
    ptr, ids, vals = random_csr(rng, n, F, max_active=6)
    X = dense_x(ptr, ids, vals, F)
    gold = (X @ true_w).argmax(1).astype(numpy.int32)
    keep = numpy.array([ptr[i + 1] > ptr[i] for i in range(n)])  # empty rows are not separable
    rows = numpy.flatnonzero(keep)
    sub = [(ids[ptr[i]:ptr[i + 1]], vals[ptr[i]:ptr[i + 1]]) for i in rows]
    from spacy_adf.features.ngrams import stack_rows

    ptr, ids, vals = stack_rows(sub)
    gold = gold[rows]
    model = MaxEntModel(L, F)
    state = SparseADF(model, c=1.0, alpha=1.0, beta=1.0, window=10 ** 6, use_averages=True)
    grad = SparseGrad(model)
    for epoch in range(200):
        mistakes = -train_maxent_online(model, state, grad, ptr, ids, vals, gold, perceptron=True)
        if mistakes == 0:
            break
    assert mistakes == 0
    assert (model.predict_proba(ptr, ids, vals).argmax(1) == gold).all()
    # every sample was one counted update, right or wrong
    assert state.n_updates == (epoch + 1) * len(gold)


def test_core_rejects_bad_batches():
    model = MaxEntModel(2, 3)
    grad = SparseGrad(model)
    state = SparseADF(model, c=0.1, window=5)
    with pytest.raises(ValueError, match="feature id out of range"):
        model.predict_proba([0, 1], [3], [1.0])
    with pytest.raises(ValueError, match="malformed CSR"):
        model.predict_proba([0, 2], [1], [1.0])
    with pytest.raises(ValueError, match="gold label id"):
        train_maxent_online(model, state, grad, [0, 1], [0], [1.0], [2])
    with pytest.raises(ValueError, match="minibatch"):
        train_maxent_online(model, state, grad, [0, 1], [0], [1.0], [1], minibatch=0)
    with pytest.raises(ValueError, match="do not belong"):
        train_maxent_online(MaxEntModel(2, 3), state, grad, [0, 1], [0], [1.0], [1])
    with pytest.raises(ValueError):
        MaxEntModel(2, 3, numpy.zeros(5, numpy.float32))


# ---------------------------------------------------------------- features

def test_ngram_features_and_precomputed_override():
    nlp = spacy.blank("en")
    feat = NgramFeaturizer([1, 2], lowercase=True, value="count")
    doc = Doc(nlp.vocab, words=["A", "good", "good", "Book"])
    assert feat.counts(doc) == {"a": 1, "good": 2, "book": 1, "a_good": 1, "good_good": 1, "good_book": 1}
    tri = NgramFeaturizer([3], lowercase=False)
    assert tri.counts(doc) == {"A_good_good": 1, "good_good_Book": 1}
    doc.user_data[FEATURES_KEY] = {"x_y": 3, "z": 1}
    assert feat.counts(doc) == {"x_y": 3, "z": 1}
    keys, vals = NgramFeaturizer(value="log1p").hashes(doc)
    numpy.testing.assert_allclose(sorted(vals), sorted(numpy.log1p([3, 1])), rtol=1e-6)
    _, vals = NgramFeaturizer(value="binary").hashes(doc)
    assert vals.tolist() == [1.0, 1.0]
    # min_count counts documents
    docs = [Doc(nlp.vocab, words=w) for w in (["a", "b"], ["a", "c"], ["a"])]
    index = NgramFeaturizer([1], min_count=2).build_index(docs)
    assert len(index) == 1
    ptr, ids, vals = NgramFeaturizer([1]).featurize(docs, index)
    assert ptr.tolist() == [0, 1, 2, 3] and ids.tolist() == [0, 0, 0]


@pytest.mark.parametrize("bad", [
    {"ngram_sizes": []}, {"ngram_sizes": [0]}, {"ngram_sizes": [1, 1]}, {"ngram_sizes": "12"},
    {"value": "tfidf"}, {"min_count": 0}, {"lowercase": "yes"},
])
def test_bad_config_values_raise(bad):
    with pytest.raises(Exception) as e:
        make_nlp(**bad)
    assert any(k in str(e.value) for k in ("ngram_sizes", "value", "min_count", "lowercase"))


# ---------------------------------------------------------------- component

def test_overfits_tiny_data_and_annotates():
    nlp = make_nlp()
    examples = examples_for(nlp, synthetic_texts())
    nlp.initialize(lambda: examples)
    tc = nlp.get_pipe("adf_textcat")
    assert tc.labels == ("negative", "positive")
    _, losses = train(nlp, examples, epochs=40)
    assert losses[-1] < 0.05 * losses[0] and losses[-1] < 0.5
    scores = nlp.evaluate(examples)
    assert scores["cats_accuracy"] == 1.0
    assert scores["cats_score"] == pytest.approx(1.0)
    doc = nlp("I loved this superb book")
    assert set(doc.cats) == {"negative", "positive"}
    assert sum(doc.cats.values()) == pytest.approx(1.0, abs=1e-9)
    assert doc.cats["positive"] > 0.9
    assert nlp("What an awful , boring read").cats["negative"] > 0.9
    report = tc.memory_report()
    assert report["n_weights"] == 2 * (report["n_features"] + 1)
    assert report["inference_bytes_per_weight"] > 4


def test_empty_doc_and_unknown_features_get_the_bias_prediction():
    nlp = make_nlp()
    data = synthetic_texts(30)
    data += [(["great"], "positive")] * 10  # positive majority: a non-zero bias
    examples = examples_for(nlp, data)
    nlp.initialize(lambda: examples)
    train(nlp, examples, epochs=10)
    tc = nlp.get_pipe("adf_textcat")
    params = tc.plain_model.params
    bias = params.weights[:params.n_labels].astype(numpy.float64)
    prior = numpy.exp(bias - bias.max())
    prior /= prior.sum()
    for doc in (nlp(Doc(nlp.vocab, words=[])), nlp("zzz qqq")):
        assert [doc.cats[lab] for lab in tc.labels] == pytest.approx(prior.tolist(), rel=1e-6)
        assert sum(doc.cats.values()) == pytest.approx(1.0)


def test_round_trips_give_identical_cats(tmp_path):
    nlp = make_nlp(value="log1p")
    examples = examples_for(nlp, synthetic_texts())
    nlp.initialize(lambda: examples)
    train(nlp, examples, epochs=5)
    texts = ["a great book", "boring", "", "the story was poor but superb"]
    expected = [nlp(t).cats for t in texts]
    nlp2 = make_nlp(value="log1p")
    nlp2.get_pipe("adf_textcat").from_bytes(nlp.get_pipe("adf_textcat").to_bytes())
    assert [nlp2(t).cats for t in texts] == expected
    nlp.to_disk(tmp_path / "model")
    nlp3 = spacy.load(tmp_path / "model")
    assert [nlp3(t).cats for t in texts] == expected
    assert nlp3.get_pipe("adf_textcat").labels == ("negative", "positive")
    import pickle

    nlp4 = pickle.loads(pickle.dumps(nlp))
    assert [nlp4(t).cats for t in texts] == expected
    # an uninitialized component round-trips too
    fresh = make_nlp().get_pipe("adf_textcat")
    again = make_nlp().get_pipe("adf_textcat").from_bytes(fresh.to_bytes())
    assert not again.plain_model.is_built


def test_corrupt_and_mismatched_data_raise(tmp_path):
    nlp = make_nlp()
    examples = examples_for(nlp, synthetic_texts())
    nlp.initialize(lambda: examples)
    tc = nlp.get_pipe("adf_textcat")
    data = tc.to_bytes()
    with pytest.raises(ValueError):
        make_nlp().get_pipe("adf_textcat").from_bytes(data[: len(data) // 2])
    with pytest.raises(ValueError, match="value="):
        make_nlp(value="binary").get_pipe("adf_textcat").from_bytes(data)
    tc.to_disk(tmp_path / "tc")
    model_file = tmp_path / "tc" / "model"
    raw = bytearray(model_file.read_bytes())
    raw[-20] ^= 0xFF  # flip bits inside the weights
    model_file.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="corrupt|checksum"):
        make_nlp().get_pipe("adf_textcat").from_disk(tmp_path / "tc")
    model_file.write_bytes(b"not msgpack at all \x00\xff")
    with pytest.raises(ValueError):
        make_nlp().get_pipe("adf_textcat").from_disk(tmp_path / "tc")
    model_file.unlink()
    with pytest.raises(ValueError, match="missing file"):
        make_nlp().get_pipe("adf_textcat").from_disk(tmp_path / "tc")
    # cfg with three labels, model with two
    tc2 = make_nlp().get_pipe("adf_textcat")
    tc.to_disk(tmp_path / "tc3")
    import srsly

    cfg = srsly.read_json(tmp_path / "tc3" / "cfg")
    cfg["labels"].append("neutral")
    del cfg["checksum"]  # an edited cfg drops its checksum (else: checksum mismatch)
    srsly.write_json(tmp_path / "tc3" / "cfg", cfg)
    with pytest.raises(ValueError, match="do not belong together"):
        tc2.from_disk(tmp_path / "tc3")


def test_errors_before_initialize_and_for_bad_gold():
    nlp = make_nlp()
    tc = nlp.get_pipe("adf_textcat")
    examples = examples_for(nlp, synthetic_texts(4))
    with pytest.raises(ValueError, match="not initialized"):
        tc.update(examples, sgd=ADF(0.1))
    with pytest.raises(ValueError, match="not initialized"):
        nlp("text")
    nlp.initialize(lambda: examples)
    with pytest.raises(ValueError, match="after initialization"):
        tc.add_label("neutral")
    ref = Doc(nlp.vocab, words=["x"])
    ref.cats = {"positive": 1.0, "negative": 1.0}
    with pytest.raises(ValueError, match="exactly one gold label"):
        tc.update([Example(Doc(nlp.vocab, words=["x"]), ref)], sgd=ADF(0.1))
    ref.cats = {"neutral": 1.0}
    with pytest.raises(ValueError, match="not one of the component's labels"):
        tc.update([Example(Doc(nlp.vocab, words=["x"]), ref)], sgd=ADF(0.1))
    single = make_nlp()
    only_pos = examples_for(single, [(["a"], "positive")])
    only_pos[0].reference.cats = {"positive": 1.0}
    with pytest.raises(ValueError, match="at least two labels"):
        single.initialize(lambda: only_pos)


def test_labels_from_add_label_and_unlabelled_examples_are_skipped():
    nlp = make_nlp()
    tc = nlp.get_pipe("adf_textcat")
    for lab in ("b", "a", "c"):
        tc.add_label(lab)
    unlabelled = Example(Doc(nlp.vocab, words=["x"]), Doc(nlp.vocab, words=["x"]))
    nlp.initialize(lambda: [unlabelled])
    assert tc.labels == ("a", "b", "c")
    losses = tc.update([unlabelled], sgd=ADF(0.1))
    assert losses["adf_textcat"] == 0.0
    cats = nlp("x").cats
    assert cats == pytest.approx({"a": 1 / 3, "b": 1 / 3, "c": 1 / 3})


def test_training_is_deterministic_under_a_fixed_seed():
    weights = []
    for _ in range(2):
        fix_random_seed(0)
        nlp = make_nlp()
        examples = examples_for(nlp, synthetic_texts())
        nlp.initialize(lambda: examples)
        train(nlp, examples, epochs=5, sgd=ADF(0.1, sigma=1.0), seed=7)
        weights.append(nlp.get_pipe("adf_textcat").plain_model.params.weights.copy())
    assert numpy.abs(weights[0]).max() > 0
    assert numpy.array_equal(weights[0], weights[1])


def test_perceptron_objective_and_averages_through_the_component():
    # the averaged perceptron as the optimizer contract defines it: a sparse
    # state with c = 1, alpha = beta = 1, no prior, averages, and
    # objective = "perceptron"
    nlp = make_nlp()
    examples = examples_for(nlp, synthetic_texts())
    nlp.initialize(lambda: examples)
    sgd = ADF(1.0, alpha=1.0, beta=1.0, use_averages=True)
    sgd.objective = "perceptron"
    _, mistakes = train(nlp, examples, epochs=15, sgd=sgd, batch=5)
    assert mistakes[-1] == 0
    tc = nlp.get_pipe("adf_textcat")
    last = tc.plain_model.params.weights.copy()
    with nlp.use_params(sgd.averages):
        avg = tc.plain_model.params.weights.copy()
        assert nlp.evaluate(examples)["cats_accuracy"] == 1.0
    assert not numpy.array_equal(last, avg)
    assert numpy.array_equal(tc.plain_model.params.weights, last)
    bad = ADF(0.1)
    bad.objective = "hinge"
    with pytest.raises(ValueError, match="objective"):
        tc.update(examples[:2], sgd=bad)


def test_dense_fallback_for_other_thinc_optimizers():
    nlp = make_nlp()
    examples = examples_for(nlp, synthetic_texts())
    nlp.initialize(lambda: examples)
    _, losses = train(nlp, examples, epochs=30, sgd=ThincSGD(0.5))
    assert losses[-1] < 0.2 * losses[0]
    assert nlp.evaluate(examples)["cats_accuracy"] == 1.0


def test_batch_objective_for_lbfgs():
    nlp = make_nlp()
    examples = examples_for(nlp, synthetic_texts(10))
    nlp.initialize(lambda: examples)
    tc = nlp.get_pipe("adf_textcat")
    params = tc.trainable_params
    f = tc.batch_objective(examples)
    w = numpy.random.default_rng(0).normal(0, 0.1, params.n_weights)
    ll, g = f(w)
    numpy.testing.assert_array_equal(params.weights, w.astype(numpy.float32))
    assert g.dtype == numpy.float64 and g.shape == (params.n_weights,)
    ll0, _ = f(numpy.zeros(params.n_weights))
    assert ll0 == pytest.approx(10 * numpy.log(0.5))
    # a step along the gradient increases the log-likelihood
    assert f(w + 1e-3 * g)[0] > ll
    with pytest.raises(ValueError):
        f(numpy.zeros(3))


def test_scorer_accuracy():
    nlp = spacy.blank("en")
    egs = []
    for pred, gold in (("a", "a"), ("b", "a"), ("b", "b"), ("a", "b")):
        p = Doc(nlp.vocab, words=["x"])
        p.cats = {"a": float(pred == "a"), "b": float(pred == "b")}
        r = Doc(nlp.vocab, words=["x"])
        r.cats = {"a": float(gold == "a"), "b": float(gold == "b")}
        egs.append(Example(p, r))
    unlabelled = Example(Doc(nlp.vocab, words=["x"]), Doc(nlp.vocab, words=["x"]))
    scores = textcat_score(egs + [unlabelled], labels=["a", "b"])
    assert scores["cats_accuracy"] == pytest.approx(2 / 4)
    assert "cats_macro_f" in scores and "cats_score" in scores


# ---------------------------------------------------------------- reader

def test_reader_parses_files(tmp_path):
    d = write_review_files(tmp_path, n_per_class=5)
    nlp = spacy.blank("en")
    egs = list(create_blitzer_reader(d, split="all")(nlp))
    assert len(egs) == 10
    pos = [eg for eg in egs if eg.reference.cats["positive"] == 1.0]
    assert len(pos) == 5 and all(eg.reference.cats["negative"] == 0.0 for eg in pos)
    eg = pos[0]
    feats = eg.predicted.user_data[FEATURES_KEY]
    assert feats["the"] == 2 and feats["the_great"] == 1 and eg.reference.user_data[FEATURES_KEY] == feats
    words = [t.text for t in eg.reference]
    assert words[:3] == ["the", "the", "great"] and "the_great" not in words and len(words) == 4
    assert parse_line("a:1 a:2 b_c:1 #label#:negative") == ({"a": 3, "b_c": 1}, "negative")


@pytest.mark.parametrize("bad_line, message", [
    ("good:1 bad #label#:positive", "not a 'feature:count' pair"),
    ("good:1 bad:x #label#:positive", "not a positive integer"),
    ("good:1 bad:0 #label#:positive", "not a positive integer"),
    ("good:1 bad:1", "#label#"),
    ("good:1 #label#:neutral", "unknown label"),
    ("good:1 #label#:negative", "in a file of 'positive' reviews"),
])
def test_reader_rejects_malformed_lines(tmp_path, bad_line, message):
    d = write_review_files(tmp_path, n_per_class=3, extra_lines={"positive": [bad_line]})
    with pytest.raises(ValueError, match=message) as e:
        list(create_blitzer_reader(d, split="all")(spacy.blank("en")))
    assert "positive.review, line 4" in str(e.value)


def test_split_is_deterministic_balanced_and_folds_partition(tmp_path):
    d = write_review_files(tmp_path, n_per_class=50)

    def ids(**kw):
        return [(r.label, r.line_no) for r in BlitzerCorpus(d, **kw).reviews()]

    train_ids, test_ids = ids(split="train"), ids(split="test")
    assert ids(split="train") == train_ids  # deterministic
    assert len(train_ids) == 80 and len(test_ids) == 20
    assert sum(lab == "positive" for lab, _ in test_ids) == 10
    assert not set(train_ids) & set(test_ids)
    assert set(train_ids) | set(test_ids) == set(ids(split="all"))
    assert set(ids(split="test", seed=1)) != set(test_ids)
    held = [set(ids(split="train", n_folds=4, fold=k, fold_part="heldout")) for k in range(4)]
    assert set().union(*held) == set(train_ids) and sum(len(h) for h in held) == 80
    for k in range(4):
        assert sum(lab == "positive" for lab, _ in held[k]) == 10
        rest = set(ids(split="train", n_folds=4, fold=k))
        assert rest == set(train_ids) - held[k]
    for bad in ({"split": "dev"}, {"n_folds": 1}, {"n_folds": 3, "fold": 3}, {"fold_part": "x"}):
        with pytest.raises(ValueError):
            BlitzerCorpus(d, **bad)
    with pytest.raises(ValueError, match="does not exist"):
        BlitzerCorpus(tmp_path / "missing")


@pytest.mark.slow
def test_blitzer_books_split(shared_data):
    path = shared_data / "blitzer_sentiment" / "books"
    if not Path(path).exists():
        pytest.skip("Blitzer books data not available")
    nlp = make_nlp()
    tr = list(create_blitzer_reader(path, split="train")(nlp))
    te = list(create_blitzer_reader(path, split="test")(nlp))
    assert len(tr) == 1600 and len(te) == 400
    nlp.initialize(lambda: tr)
    train(nlp, tr, epochs=10, sgd=ADF(0.005, sigma=1.0), batch=100)
    assert nlp.evaluate(te)["cats_accuracy"] > 0.77


def test_learning_curve_script_balances_subsets_and_fits(tmp_path):
    """The learning-curve protocol (scripts/evaluate_textcat.py curve):
    class-balanced seeded subsets per size, one run on the full training
    split, a fit over log2(size)."""
    from benchmarks import textcat_protocols as evaluate_textcat

    d = write_review_files(tmp_path, n_per_class=25)
    nlp = spacy.blank("en")
    common = dict(value="count", c=0.005, sigma=1.0, epochs=3, optimizer="adf", minibatch=1, seed=0, min_count=1)
    res = evaluate_textcat.learning_curve(list(BlitzerCorpus(d, split="train")(nlp)),
                                          list(BlitzerCorpus(d, split="test")(nlp)), [8, 40], 2, common)
    assert [p["size"] for p in res["points"]] == [8, 40]
    assert [p["subsets"] for p in res["points"]] == [2, 1]  # 40 = the whole training split
    assert len(res["runs"]) == 3 and all(0.0 <= r["test_accuracy"] <= 1.0 for r in res["runs"])
    mean_small, mean_full = (p["mean"] for p in res["points"])
    assert res["fit"]["accuracy_per_doubling"] == pytest.approx(
        (mean_full - mean_small) / math.log2(40 / 8))
    assert res["steps"] == [{"from": 8, "to": 40, "accuracy_per_doubling": pytest.approx(
        res["fit"]["accuracy_per_doubling"])}]
    train = list(BlitzerCorpus(d, split="train")(spacy.blank("en")))
    sub = evaluate_textcat.balanced_subset(train, 10, seed=3)
    labels = [max(eg.reference.cats, key=eg.reference.cats.get) for eg in sub]
    assert labels.count("positive") == 5 and labels.count("negative") == 5
    assert [id(eg) for eg in sub] == [id(eg) for eg in evaluate_textcat.balanced_subset(train, 10, seed=3)]
    with pytest.raises(SystemExit, match="per class"):
        evaluate_textcat.balanced_subset(train, 100, seed=0)
